// LAS/LAZ point attributes (io/las_attributes.hpp).
#include "io/las_attributes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "io/las_fields.hpp"
#include "io/las_format.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

constexpr std::size_t kDescriptorBytes = 192;
// Field offsets inside a descriptor (LAS 1.4 R15 table 24).
constexpr std::size_t kTypeAt = 2, kOptionsAt = 3, kNameAt = 4, kScaleAt = 112, kOffsetAt = 136;
constexpr unsigned kScaleBit = 1u << 3, kOffsetBit = 1u << 4;

constexpr std::array<std::size_t, 11> kTypeBytes{0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

double load_extra(const std::byte* p, int type) {
  switch (type) {
    case 1: return load_le<std::uint8_t>(p, 0);
    case 2: return load_le<std::int8_t>(p, 0);
    case 3: return load_le<std::uint16_t>(p, 0);
    case 4: return load_le<std::int16_t>(p, 0);
    case 5: return load_le<std::uint32_t>(p, 0);
    case 6: return load_le<std::int32_t>(p, 0);
    case 7: return static_cast<double>(load_le<std::uint64_t>(p, 0));
    case 8: return static_cast<double>(load_le<std::int64_t>(p, 0));
    case 9: return load_le<float>(p, 0);
    default: return load_le<double>(p, 0);
  }
}

}  // namespace

AttributeMask las_attributes(int f) {
  AttributeMask m = attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::ReturnNumber) |
                    attribute_bit(Attribute::NumberOfReturns) |
                    attribute_bit(Attribute::Classification) |
                    attribute_bit(Attribute::ClassificationFlags) |
                    attribute_bit(Attribute::ScanFlags) | attribute_bit(Attribute::ScanAngle) |
                    attribute_bit(Attribute::UserData) | attribute_bit(Attribute::PointSourceId);
  if (f > 5) m |= attribute_bit(Attribute::ScannerChannel);
  if (las_has_time(f)) m |= attribute_bit(Attribute::GpsTime);
  if (las_nir_offset(f) != 0) m |= attribute_bit(Attribute::Nir);
  return m;
}

std::vector<LasExtraField> parse_las_extra_bytes(const LasMetadata& metadata, int point_format,
                                                 std::size_t record_length,
                                                 const std::filesystem::path& path) {
  const std::size_t base = kLasMinRecordLength[static_cast<std::size_t>(point_format)];
  const std::size_t extra_bytes = record_length > base ? record_length - base : 0;
  std::vector<LasExtraField> fields;
  std::size_t at = base;
  auto scan = [&](const LasVlr& vlr, bool extended) {
    const std::string where = fmt::format("'{}': the extra-bytes {}VLR (LASF_Spec, record 4)",
                                          path.string(), extended ? "extended " : "");
    if (vlr.data.size() % kDescriptorBytes != 0) {
      throw InvalidInput(fmt::format("{} holds {} bytes, not whole {}-byte descriptors", where,
                                     vlr.data.size(), kDescriptorBytes));
    }
    for (std::size_t d = 0; d < vlr.data.size() / kDescriptorBytes; ++d) {
      const std::byte* r = vlr.data.data() + d * kDescriptorBytes;
      const unsigned type = load_le<std::uint8_t>(r, kTypeAt);
      const unsigned options = load_le<std::uint8_t>(r, kOptionsAt);
      char raw[33] = {};
      std::memcpy(raw, r + kNameAt, 32);
      const std::string name(raw);
      if (type > 30) {
        throw InvalidInput(fmt::format("{}: descriptor {} ('{}') has data type {}, not 0-30", where,
                                       d, name, type));
      }
      // Type 0: `options` undocumented bytes; 1-10 one value; 11-30 (deprecated) 2 or 3.
      const int base_type = type == 0 ? 0 : static_cast<int>((type - 1) % 10 + 1);
      const std::size_t elements = type == 0 ? 0 : (type - 1) / 10 + 1;
      const std::size_t bytes = type == 0 ? options : elements * kTypeBytes[base_type];
      if (at + bytes > base + extra_bytes) {
        throw InvalidInput(fmt::format(
            "{}: descriptor {} ('{}') needs bytes {} to {} of each record, but the records of "
            "point format {} hold {} extra bytes ({} in all, the format's own {})",
            where, d, name, at - base, at - base + bytes - 1, point_format, extra_bytes,
            record_length, base));
      }
      for (std::size_t e = 0; e < elements; ++e) {
        LasExtraField f;
        f.name = elements == 1 ? name : fmt::format("{}[{}]", name, e);
        f.type = base_type;
        f.offset = at + e * kTypeBytes[base_type];
        if ((options & kScaleBit) != 0) f.scale = load_le<double>(r, kScaleAt + 8 * e);
        if ((options & kOffsetBit) != 0) f.value_offset = load_le<double>(r, kOffsetAt + 8 * e);
        const bool repeated = std::any_of(fields.begin(), fields.end(),
                                          [&](const auto& g) { return g.name == f.name; });
        if (repeated || f.name.empty()) {
          throw InvalidInput(fmt::format("{}: descriptor {} has {} name '{}'", where, d,
                                         f.name.empty() ? "an empty" : "a repeated", f.name));
        }
        fields.push_back(std::move(f));
      }
      at += bytes;
    }
  };
  auto is_extra_bytes = [](const LasVlr& v) { return v.user() == "LASF_Spec" && v.record_id == 4; };
  for (const LasVlr& v : metadata.vlrs) {
    if (is_extra_bytes(v)) scan(v, false);
  }
  for (const LasVlr& v : metadata.evlrs) {
    if (is_extra_bytes(v)) scan(v, true);
  }
  return fields;
}

void decode_las_attributes(const std::byte* records, std::size_t n, int f,
                           std::size_t record_length, AttributeMask mask,
                           std::span<const LasExtraField> extra, std::size_t first,
                           PointAttributes& out) {
  constexpr AttributeMask kFieldBits =
      attribute_bit(Attribute::ReturnNumber) | attribute_bit(Attribute::NumberOfReturns) |
      attribute_bit(Attribute::Classification) | attribute_bit(Attribute::ClassificationFlags) |
      attribute_bit(Attribute::ScannerChannel) | attribute_bit(Attribute::ScanFlags) |
      attribute_bit(Attribute::ScanAngle) | attribute_bit(Attribute::UserData) |
      attribute_bit(Attribute::PointSourceId);
  auto want = [&](Attribute a) { return has_attribute(mask, a); };
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* r = records + i * record_length;
    const std::size_t k = first + i;
    if (want(Attribute::Intensity)) out.intensity[k] = load_le<std::uint16_t>(r, 12);
    if ((mask & kFieldBits) != 0) {
      const LasFields x = read_las_fields(r, f);
      if (want(Attribute::ReturnNumber)) out.return_number[k] = static_cast<std::uint8_t>(x.ret);
      if (want(Attribute::NumberOfReturns)) {
        out.number_of_returns[k] = static_cast<std::uint8_t>(x.returns);
      }
      if (want(Attribute::Classification)) {
        out.classification[k] = static_cast<std::uint8_t>(x.classification);
      }
      if (want(Attribute::ClassificationFlags)) {
        out.classification_flags[k] = static_cast<std::uint8_t>(x.flags);
      }
      if (want(Attribute::ScannerChannel)) {
        out.scanner_channel[k] = static_cast<std::uint8_t>(x.channel);
      }
      if (want(Attribute::ScanFlags)) {
        out.scan_flags[k] = static_cast<std::uint8_t>(x.scan_direction | (x.edge << 1));
      }
      if (want(Attribute::ScanAngle)) {
        // Formats 0-5 store whole degrees: take them as stored, not through 0.006 steps.
        out.scan_angle[k] = f <= 5 ? static_cast<float>(load_le<std::int8_t>(r, 16))
                                   : static_cast<float>(x.scan_angle * 0.006);
      }
      if (want(Attribute::UserData)) out.user_data[k] = static_cast<std::uint8_t>(x.user_data);
      if (want(Attribute::PointSourceId)) {
        out.point_source_id[k] = static_cast<std::uint16_t>(x.source);
      }
    }
    if (want(Attribute::GpsTime)) out.gps_time[k] = load_le<double>(r, las_time_offset(f));
    if (want(Attribute::Nir)) out.nir[k] = load_le<std::uint16_t>(r, las_nir_offset(f));
    for (std::size_t e = 0; e < extra.size(); ++e) {
      const LasExtraField& x = extra[e];
      out.extra[e].values[k] = load_extra(r + x.offset, x.type) * x.scale + x.value_offset;
    }
  }
}

void LasRecordReader::init_attributes(const ReaderOptions& options) {
  const bool asked = options.all_extra_attributes || !options.extra_attributes.empty();
  std::vector<LasExtraField> all;
  if (info_.record_length > kLasMinRecordLength[static_cast<std::size_t>(info_.point_format)]) {
    try {
      all = parse_las_extra_bytes(read_las_metadata(info_.path), info_.point_format,
                                  info_.record_length, info_.path);
    } catch (const InvalidInput&) {
      if (asked) throw;
    }
  }
  for (const LasExtraField& x : all) info_.extra_attributes.push_back(x.name);
  accept_attribute_request(options);
  for (const std::string& name : extra_attributes_requested()) {
    fields_.push_back(
        *std::find_if(all.begin(), all.end(), [&](const auto& x) { return x.name == name; }));
  }
}

std::size_t LasRecordReader::read_attributes_impl(std::span<Point> out,
                                                  PointAttributes& attributes) {
  // One read_impl() call: readers read from points_read(), which moves only after it.
  records_.resize(out.size() * info_.record_length);
  const std::size_t n = read_impl(out, records_);
  decode_las_attributes(records_.data(), n, info_.point_format, info_.record_length,
                        attributes_requested(), fields_, 0, attributes);
  return n;
}

}  // namespace simlod::detail
