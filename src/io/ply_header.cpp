#include "io/ply_header.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <string_view>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

// Headers are a few hundred bytes; the cap stops a non-PLY file from being scanned whole.
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;
constexpr std::size_t kReadChunk = 64 * 1024;

struct TypeName {
  std::string_view name;
  PlyType type;
};
constexpr std::array<TypeName, 16> kTypeNames{{
    {"char", PlyType::Int8},
    {"int8", PlyType::Int8},
    {"uchar", PlyType::UInt8},
    {"uint8", PlyType::UInt8},
    {"short", PlyType::Int16},
    {"int16", PlyType::Int16},
    {"ushort", PlyType::UInt16},
    {"uint16", PlyType::UInt16},
    {"int", PlyType::Int32},
    {"int32", PlyType::Int32},
    {"uint", PlyType::UInt32},
    {"uint32", PlyType::UInt32},
    {"float", PlyType::Float32},
    {"float32", PlyType::Float32},
    {"double", PlyType::Float64},
    {"float64", PlyType::Float64},
}};

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// Consumes header lines one at a time; line() returns true at end_header.
class HeaderParser {
 public:
  explicit HeaderParser(std::string path) : path_(std::move(path)) {}

  bool line(std::string_view text) {
    ++line_no_;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const auto words = split_words(text);
    if (line_no_ == 1) {
      if (words.size() != 1 || words[0] != "ply") fail("the first line is not 'ply'");
      return false;
    }
    if (words.empty()) return false;
    const std::string_view key = words[0];
    if (key == "comment") {
      if (!seen_comment_) header_.comment = std::string(trim(text.substr(text.find(key) + 7)));
      seen_comment_ = true;
    } else if (key == "obj_info") {
      // Free-form metadata; nothing to take from it.
    } else if (key == "format") {
      parse_format(words);
    } else if (key == "element") {
      if (words.size() != 3) fail("expected 'element <name> <count>'");
      std::uint64_t count = 0;
      const auto* end = words[2].data() + words[2].size();
      const auto [ptr, ec] = std::from_chars(words[2].data(), end, count);
      if (ec != std::errc() || ptr != end) {
        fail(fmt::format("element count '{}' is not a non-negative integer", words[2]));
      }
      header_.elements.push_back(PlyElement{std::string(words[1]), count, {}});
    } else if (key == "property") {
      parse_property(words);
    } else if (key == "end_header") {
      if (header_.format.empty()) fail("the header has no 'format' line");
      header_.line_count = line_no_;
      return true;
    } else {
      fail(fmt::format("unknown header keyword '{}'", key));
    }
    return false;
  }

  PlyHeader take() { return std::move(header_); }

  [[noreturn]] void fail(std::string_view what) const {
    throw InvalidInput(
        fmt::format("'{}' is not a valid PLY file: header line {}: {}", path_, line_no_, what));
  }

 private:
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }

  PlyType parse_type(std::string_view word) const {
    for (const auto& t : kTypeNames) {
      if (t.name == word) return t.type;
    }
    fail(fmt::format("unknown property type '{}'", word));
  }

  void parse_format(const std::vector<std::string_view>& words) {
    if (words.size() != 3) fail("expected 'format <encoding> 1.0'");
    if (words[1] == "ascii") {
      header_.encoding = PlyEncoding::Ascii;
    } else if (words[1] == "binary_little_endian") {
      header_.encoding = PlyEncoding::BinaryLittleEndian;
    } else if (words[1] == "binary_big_endian") {
      throw InvalidInput(fmt::format(
          "'{}': binary_big_endian PLY is unsupported (convert it to binary_little_endian or "
          "ascii)",
          path_));
    } else {
      fail(fmt::format("unknown encoding '{}'", words[1]));
    }
    if (words[2] != "1.0") {
      throw InvalidInput(
          fmt::format("'{}': PLY version '{}' is unsupported (expected 1.0)", path_, words[2]));
    }
    header_.format = fmt::format("{} {}", words[1], words[2]);
  }

  void parse_property(const std::vector<std::string_view>& words) {
    if (header_.elements.empty()) fail("'property' before any 'element'");
    PlyProperty property;
    if (words.size() == 5 && words[1] == "list") {
      property.list_count = parse_type(words[2]);
      if (*property.list_count == PlyType::Float32 || *property.list_count == PlyType::Float64) {
        fail("a list count must have an integer type");
      }
      property.type = parse_type(words[3]);
      property.name = std::string(words[4]);
    } else if (words.size() == 3) {
      property.type = parse_type(words[1]);
      property.name = std::string(words[2]);
    } else {
      fail("expected 'property <type> <name>' or 'property list <type> <type> <name>'");
    }
    header_.elements.back().properties.push_back(std::move(property));
  }

  std::string path_;
  PlyHeader header_;
  std::uint64_t line_no_ = 0;
  bool seen_comment_ = false;
};

}  // namespace

std::size_t ply_type_size(PlyType type) {
  switch (type) {
    case PlyType::Int8:
    case PlyType::UInt8: return 1;
    case PlyType::Int16:
    case PlyType::UInt16: return 2;
    case PlyType::Int32:
    case PlyType::UInt32:
    case PlyType::Float32: return 4;
    case PlyType::Float64: return 8;
  }
  return 0;
}

const char* ply_type_name(PlyType type) {
  switch (type) {
    case PlyType::Int8: return "char";
    case PlyType::UInt8: return "uchar";
    case PlyType::Int16: return "short";
    case PlyType::UInt16: return "ushort";
    case PlyType::Int32: return "int";
    case PlyType::UInt32: return "uint";
    case PlyType::Float32: return "float";
    case PlyType::Float64: return "double";
  }
  return "?";
}

const PlyProperty* PlyElement::first_list() const {
  for (const auto& p : properties) {
    if (p.list_count) return &p;
  }
  return nullptr;
}

std::uint64_t PlyElement::record_bytes() const {
  std::uint64_t bytes = 0;
  for (const auto& p : properties) bytes += ply_type_size(p.type);
  return bytes;
}

PlyHeader read_ply_header(const InputFile& file) {
  const std::string path = file.path().string();
  if (file.size() == 0) throw InvalidInput(fmt::format("'{}' is empty, not a PLY file", path));
  HeaderParser parser(path);
  std::string text;
  std::size_t line_start = 0;
  for (;;) {
    for (std::size_t nl; (nl = text.find('\n', line_start)) != std::string::npos;) {
      const std::string_view line(text.data() + line_start, nl - line_start);
      line_start = nl + 1;
      if (parser.line(line)) {
        PlyHeader header = parser.take();
        header.data_offset = line_start;
        return header;
      }
    }
    if (text.size() >= kMaxHeaderBytes) {
      throw InvalidInput(
          fmt::format("'{}' is not a valid PLY file: no 'end_header' line in its "
                      "first {} bytes",
                      path, kMaxHeaderBytes));
    }
    const std::size_t old = text.size();
    text.resize(old + kReadChunk);
    text.resize(old + file.read_some(old, std::as_writable_bytes(std::span(text)).subspan(old)));
    if (old == 0 && text.compare(0, 3, "ply") != 0) {
      throw InvalidInput(fmt::format("'{}' is not a PLY file: it does not start with 'ply'", path));
    }
    if (text.size() == old) {
      // The file ends inside the header; a final end_header without a newline still counts.
      const std::string_view rest(text.data() + line_start, text.size() - line_start);
      if (!rest.empty() && parser.line(rest)) {
        PlyHeader header = parser.take();
        header.data_offset = text.size();
        return header;
      }
      throw InvalidInput(
          fmt::format("'{}' is not a valid PLY file: the header has no 'end_header' line", path));
    }
  }
}

}  // namespace simlod::detail
