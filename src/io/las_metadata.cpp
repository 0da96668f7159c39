// read_las_metadata and the VLR encoding. Field offsets: las_header.cpp; a VLR's header is
// reserved (uint16), user id (char[16]), record id (uint16), payload length (uint16; uint64 in
// an extended VLR) and description (char[32]).
#include "io/las_metadata.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "io/file.hpp"
#include "io/las_chunks.hpp"
#include "io/las_format.hpp"
#include "io/las_header.hpp"
#include "simlod/error.hpp"

namespace simlod {

std::string LasVlr::user() const {
  const auto end = std::find(user_id.begin(), user_id.end(), '\0');
  return {user_id.begin(), end};
}

LasMetadata read_las_metadata(const std::filesystem::path& path) {
  const detail::InputFile file(path);
  const detail::LasHeader header = detail::read_las_header(file);
  detail::check_las_vlr_lists(file, header);
  std::array<std::byte, 227> h{};
  file.read_exact(0, h, "LAS header");
  using detail::load_le;
  LasMetadata m;
  m.version_minor = header.version_minor;
  m.file_source_id = load_le<std::uint16_t>(h.data(), 4);
  m.global_encoding = load_le<std::uint16_t>(h.data(), 6);
  std::memcpy(m.project_guid.data(), h.data() + 8, 16);
  std::memcpy(m.system_identifier.data(), h.data() + 26, 32);
  std::memcpy(m.generating_software.data(), h.data() + 58, 32);
  m.creation_day = load_le<std::uint16_t>(h.data(), 90);
  m.creation_year = load_le<std::uint16_t>(h.data(), 92);
  // check_las_vlr_lists made sure that every record lies where the header says.
  auto read_record = [&](std::uint64_t at, bool extended, std::uint64_t& next) {
    std::array<std::byte, detail::kEvlrHeaderSize> r{};
    const std::uint64_t head = extended ? detail::kEvlrHeaderSize : detail::kVlrHeaderSize;
    file.read_exact(at, std::span(r).first(head),
                    extended ? "LAS extended VLR header" : "LAS VLR header");
    LasVlr vlr;
    vlr.reserved = load_le<std::uint16_t>(r.data(), 0);
    std::memcpy(vlr.user_id.data(), r.data() + 2, 16);
    vlr.record_id = load_le<std::uint16_t>(r.data(), 18);
    const std::uint64_t length =
        extended ? load_le<std::uint64_t>(r.data(), 20) : load_le<std::uint16_t>(r.data(), 20);
    std::memcpy(vlr.description.data(), r.data() + (extended ? 28 : 22), 32);
    vlr.data.resize(static_cast<std::size_t>(length));
    file.read_exact(at + head, vlr.data, extended ? "LAS extended VLR" : "LAS VLR");
    next = at + head + length;
    return vlr;
  };
  std::uint64_t at = header.header_size;
  for (std::uint32_t i = 0; i < header.vlr_count; ++i) {
    LasVlr vlr = read_record(at, false, at);
    if (vlr.user() == "laszip encoded" && vlr.record_id == 22204) continue;  // the compression's
    m.vlrs.push_back(std::move(vlr));
  }
  if (header.version_minor >= 4) {
    std::array<std::byte, 12> e{};
    file.read_exact(235, e, "LAS 1.4 extended VLR fields");
    at = load_le<std::uint64_t>(e.data(), 0);
    const auto count = load_le<std::uint32_t>(e.data(), 8);
    for (std::uint32_t i = 0; i < count; ++i) m.evlrs.push_back(read_record(at, true, at));
  }
  return m;
}

namespace detail {
namespace {

void append_head(std::vector<std::byte>& out, const LasVlr& vlr, bool extended) {
  const std::size_t at = out.size();
  out.resize(at + (extended ? kEvlrHeaderSize : kVlrHeaderSize));
  std::byte* r = out.data() + at;
  store_le<std::uint16_t>(r, 0, vlr.reserved);
  std::memcpy(r + 2, vlr.user_id.data(), 16);
  store_le<std::uint16_t>(r, 18, vlr.record_id);
  if (extended) {
    store_le<std::uint64_t>(r, 20, vlr.data.size());
  } else {
    store_le<std::uint16_t>(r, 20, static_cast<std::uint16_t>(vlr.data.size()));
  }
  std::memcpy(r + (extended ? 28 : 22), vlr.description.data(), 32);
  out.insert(out.end(), vlr.data.begin(), vlr.data.end());
}

}  // namespace

void append_vlr(std::vector<std::byte>& out, const LasVlr& vlr) {
  if (vlr.data.size() > 0xFFFF) {
    throw InvalidInput(fmt::format(
        "the VLR \"{}\" record {} holds {} bytes, more than the 65,535 a VLR can hold (write it "
        "as an extended VLR)",
        vlr.user(), vlr.record_id, vlr.data.size()));
  }
  append_head(out, vlr, false);
}

std::vector<std::byte> encode_evlrs(const std::vector<LasVlr>& evlrs, std::uint64_t start,
                                    std::uint64_t& waveform_start) {
  std::vector<std::byte> out;
  for (const LasVlr& vlr : evlrs) {
    if (vlr.user() == "LASF_Spec" && vlr.record_id == 65535) waveform_start = start + out.size();
    append_head(out, vlr, true);
  }
  return out;
}

}  // namespace detail
}  // namespace simlod
