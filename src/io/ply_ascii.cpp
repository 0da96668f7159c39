// ASCII PLY vertices: one element record per line, whitespace-separated numbers.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "io/ply_vertices.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

constexpr std::size_t kReadChunk = std::size_t{1} << 20;
// A vertex line is tens of bytes; a longer "line" means the data is not ASCII PLY.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool is_blank(std::string_view line) {
  for (char c : line) {
    if (!is_space(c)) return false;
  }
  return true;
}

class PlyAsciiSource final : public PlyVertexSource {
 public:
  PlyAsciiSource(const InputFile& file, const PlyHeader& header, const PlyVertexLayout& layout)
      : file_(file),
        layout_(layout),
        count_(header.elements[layout.element].count),
        offset_(header.data_offset),
        line_(header.line_count),
        values_(layout.property_count) {
    for (const auto& p : header.elements[layout.element].properties) names_.push_back(p.name);
    for (std::size_t e = 0; e < layout.element; ++e) {
      const PlyElement& element = header.elements[e];
      for (std::uint64_t i = 0; i < element.count; ++i) {
        if (!next_record()) {
          throw InvalidInput(fmt::format(
              "'{}' is truncated: the data ends at line {} inside PLY element '{}' ({} of {} "
              "records)",
              path(), line_, element.name, i, element.count));
        }
      }
    }
  }

  void next(std::span<PlyVertex> out, std::span<double> scalars) override {
    const std::size_t k = scalars.empty() ? 0 : layout_.scalars.size();
    for (std::size_t i = 0; i < out.size(); ++i) {
      PlyVertex& v = out[i];
      if (!next_record()) {
        throw InvalidInput(fmt::format(
            "'{}' is truncated: the PLY header declares {} vertices but the data ends at line "
            "{} after {} vertices",
            path(), count_, line_, next_));
      }
      parse_vertex(v);
      for (std::size_t j = 0; j < k; ++j) {
        scalars[i * k + j] = values_[layout_.scalars[j].field.index];
      }
      ++next_;
    }
  }

 private:
  std::string path() const { return file_.path().string(); }

  void parse_vertex(PlyVertex& v) {
    std::size_t count = 0;
    std::size_t i = 0;
    const std::string_view s = record_;
    while (i < s.size()) {
      while (i < s.size() && is_space(s[i])) ++i;
      if (i == s.size()) break;
      std::size_t end = i;
      while (end < s.size() && !is_space(s[end])) ++end;
      if (count < values_.size()) values_[count] = parse_number(s.substr(i, end - i), count);
      ++count;
      i = end;
    }
    if (count != values_.size()) {
      throw InvalidInput(fmt::format("'{}' line {}: vertex {} has {} values, expected {}", path(),
                                     line_, next_, count, values_.size()));
    }
    v.x = values_[layout_.xyz[0].index];
    v.y = values_[layout_.xyz[1].index];
    v.z = values_[layout_.xyz[2].index];
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) {
      throw InvalidInput(
          fmt::format("'{}' line {}: vertex {} has a non-finite coordinate ({}, {}, {})", path(),
                      line_, next_, v.x, v.y, v.z));
    }
    if (layout_.has_color) {
      std::uint32_t c[4] = {0, 0, 0, 255};
      for (std::size_t k = 0; k < 3; ++k) {
        c[k] = ply_color_channel(layout_.rgb[k].type, values_[layout_.rgb[k].index]);
      }
      if (layout_.has_alpha)
        c[3] = ply_color_channel(layout_.alpha.type, values_[layout_.alpha.index]);
      v.rgba = pack_rgba(c[0], c[1], c[2], c[3]);
    } else {
      v.rgba = kPlyDefaultColor;
    }
  }

  double parse_number(std::string_view token, std::size_t property) const {
    std::string_view digits = token;
    if (digits.size() > 1 && digits[0] == '+') digits.remove_prefix(1);  // from_chars rejects '+'
    double value = 0.0;
    const char* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    // Out of double range: strtod gives the overflow (inf) or underflow (0) value.
    if (ec == std::errc::result_out_of_range && ptr == end)
      return std::strtod(std::string(digits).c_str(), nullptr);
    if (ec != std::errc() || ptr != end) {
      throw InvalidInput(
          fmt::format("'{}' line {}: '{}' is not a number (vertex {}, property '{}')", path(),
                      line_, token, next_, names_[property]));
    }
    return value;
  }

  // Advances to the next non-blank line; false at the end of the file.
  bool next_record() {
    std::string_view line;
    while (next_line(line)) {
      if (!is_blank(line)) {
        record_ = line;
        return true;
      }
    }
    return false;
  }

  bool next_line(std::string_view& line) {
    for (;;) {
      const std::size_t nl = buffer_.find('\n', pos_);
      if (nl != std::string::npos || (eof_ && pos_ < buffer_.size())) {
        const std::size_t end = nl != std::string::npos ? nl : buffer_.size();
        line = std::string_view(buffer_).substr(pos_, end - pos_);
        pos_ = end + (nl != std::string::npos ? 1 : 0);
        ++line_;
        return true;
      }
      if (eof_) return false;
      buffer_.erase(0, pos_);
      pos_ = 0;
      if (buffer_.size() > kMaxLineBytes) {
        throw InvalidInput(
            fmt::format("'{}' line {} is longer than {} bytes; the data is not ASCII PLY", path(),
                        line_ + 1, kMaxLineBytes));
      }
      const std::size_t old = buffer_.size();
      buffer_.resize(old + kReadChunk);
      const std::size_t n =
          file_.read_some(offset_, std::as_writable_bytes(std::span(buffer_)).subspan(old));
      buffer_.resize(old + n);
      offset_ += n;
      eof_ = n == 0;
    }
  }

  const InputFile& file_;
  PlyVertexLayout layout_;
  std::uint64_t count_ = 0;
  std::uint64_t offset_ = 0;  ///< next file byte to buffer
  std::uint64_t line_ = 0;    ///< 1-based number of the line last returned
  std::uint64_t next_ = 0;    ///< index of the next vertex
  std::vector<double> values_;
  std::vector<std::string> names_;
  std::string buffer_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  std::string_view record_;
};

}  // namespace

std::unique_ptr<PlyVertexSource> make_ply_ascii_source(const InputFile& file,
                                                       const PlyHeader& header,
                                                       const PlyVertexLayout& layout) {
  return std::make_unique<PlyAsciiSource>(file, header, layout);
}

}  // namespace simlod::detail
