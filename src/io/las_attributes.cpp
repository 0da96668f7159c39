// LAS/LAZ point attributes (io/las_attributes.hpp).
#include "io/las_attributes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

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

namespace {

/// The stored value of an extra field for `value`, or nullopt when its type cannot hold it.
std::optional<double> extra_stored(const LasExtraField& f, double value) {
  const double v = (value - f.value_offset) / f.scale;
  if (f.type == 9 || f.type == 10) return v;
  constexpr std::array<double, 11> kLow{0, 0, -128, 0, -32768, 0, -2147483648.0, 0, -9.2e18, 0, 0};
  constexpr std::array<double, 11> kHigh{
      0, 255, 127, 65535, 32767, 4294967295.0, 2147483647.0, 1.8e19, 9.2e18, 0, 0};
  const double r = std::round(v);
  if (!(r >= kLow[static_cast<std::size_t>(f.type)] &&
        r <= kHigh[static_cast<std::size_t>(f.type)])) {
    return std::nullopt;
  }
  return r;
}

void store_extra(std::byte* p, int type, double v) {
  switch (type) {
    case 1: store_le<std::uint8_t>(p, 0, static_cast<std::uint8_t>(v)); break;
    case 2: store_le<std::int8_t>(p, 0, static_cast<std::int8_t>(v)); break;
    case 3: store_le<std::uint16_t>(p, 0, static_cast<std::uint16_t>(v)); break;
    case 4: store_le<std::int16_t>(p, 0, static_cast<std::int16_t>(v)); break;
    case 5: store_le<std::uint32_t>(p, 0, static_cast<std::uint32_t>(v)); break;
    case 6: store_le<std::int32_t>(p, 0, static_cast<std::int32_t>(v)); break;
    case 7: store_le<std::uint64_t>(p, 0, static_cast<std::uint64_t>(v)); break;
    case 8: store_le<std::int64_t>(p, 0, static_cast<std::int64_t>(v)); break;
    case 9: store_le<float>(p, 0, static_cast<float>(v)); break;
    default: store_le<double>(p, 0, v); break;
  }
}

}  // namespace

void encode_las_attributes(std::byte* records, std::size_t n, int f, std::size_t record_length,
                           const PointAttributes& a, std::size_t first,
                           std::span<const LasExtraField> fields, const std::filesystem::path& path,
                           std::uint64_t first_index) {
  const AttributeMask present = a.present();
  const AttributeMask lacking = present & ~las_attributes(f);
  if (lacking != 0) {
    throw InvalidInput(fmt::format("'{}': LAS point format {} has no field for {}", path.string(),
                                   f, attribute_names(lacking)));
  }
  std::vector<const LasExtraField*> extra(a.extra.size());
  for (std::size_t e = 0; e < a.extra.size(); ++e) {
    for (const LasExtraField& x : fields) {
      if (x.name == a.extra[e].name) extra[e] = &x;
    }
    if (extra[e] == nullptr) {
      throw InvalidInput(fmt::format(
          "'{}': the extra attribute '{}' has no field: the extra-bytes VLR of the writer's "
          "metadata does not describe it",
          path.string(), a.extra[e].name));
    }
  }
  auto check_size = [&](std::size_t size, const char* what) {
    if (size != 0 && size < first + n) {
      throw InvalidInput(
          fmt::format("'{}': {} values of {} for {} points", path.string(), size, what, first + n));
    }
  };
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    const auto at = static_cast<Attribute>(i);
    check_size(a.size_of(at), to_string(at));
  }
  for (const auto& e : a.extra) check_size(e.values.size(), e.name.c_str());

  const bool legacy = f <= 5;
  const unsigned max_return = legacy ? 7 : 15, max_class = legacy ? 31 : 255;
  const unsigned max_flags = legacy ? 7 : 15;
  auto bad = [&](std::size_t i, const std::string& what) {
    return InvalidInput(fmt::format("'{}': point {}: {} does not fit LAS point format {}",
                                    path.string(), first_index + i, what, f));
  };
  // Everything is checked before the first record changes.
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = first + i;
    if (!a.return_number.empty() && a.return_number[k] > max_return) {
      throw bad(i, fmt::format("return number {}", a.return_number[k]));
    }
    if (!a.number_of_returns.empty() && a.number_of_returns[k] > max_return) {
      throw bad(i, fmt::format("number of returns {}", a.number_of_returns[k]));
    }
    if (!a.classification.empty() && a.classification[k] > max_class) {
      throw bad(i, fmt::format("class {}", a.classification[k]));
    }
    if (!a.classification_flags.empty() && a.classification_flags[k] > max_flags) {
      throw bad(i, fmt::format("classification flags {:#x}", a.classification_flags[k]));
    }
    if (!a.scanner_channel.empty() && a.scanner_channel[k] > 3) {
      throw bad(i, fmt::format("scanner channel {}", a.scanner_channel[k]));
    }
    if (!a.scan_flags.empty() && a.scan_flags[k] > 3) {
      throw bad(i, fmt::format("scan flags {:#x}", a.scan_flags[k]));
    }
    if (!a.scan_angle.empty()) {
      const double deg = a.scan_angle[k];
      const double stored = legacy ? std::round(deg) : std::round(deg / 0.006);
      const double limit = legacy ? 127.0 : 32767.0;
      if (!(std::abs(stored) <= limit)) throw bad(i, fmt::format("scan angle {} degrees", deg));
    }
    for (std::size_t e = 0; e < a.extra.size(); ++e) {
      if (!extra_stored(*extra[e], a.extra[e].values[k])) {
        throw bad(i,
                  fmt::format("extra attribute '{}' = {}", a.extra[e].name, a.extra[e].values[k]));
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = first + i;
    std::byte* r = records + i * record_length;
    LasFields x = read_las_fields(r, f);
    if (!a.intensity.empty()) x.intensity = a.intensity[k];
    if (!a.return_number.empty()) x.ret = a.return_number[k];
    if (!a.number_of_returns.empty()) x.returns = a.number_of_returns[k];
    if (!a.classification.empty()) x.classification = a.classification[k];
    if (!a.classification_flags.empty()) x.flags = a.classification_flags[k];
    if (!a.scanner_channel.empty()) x.channel = a.scanner_channel[k];
    if (!a.scan_flags.empty()) {
      x.scan_direction = a.scan_flags[k] & 1u;
      x.edge = (a.scan_flags[k] >> 1) & 1u;
    }
    if (!a.user_data.empty()) x.user_data = a.user_data[k];
    if (!a.point_source_id.empty()) x.source = a.point_source_id[k];
    if (!a.scan_angle.empty()) {
      // write_las_fields() stores the legacy rank as round(scan_angle * 0.006).
      x.scan_angle = static_cast<int>(legacy ? std::lround(std::round(a.scan_angle[k]) / 0.006)
                                             : std::lround(a.scan_angle[k] / 0.006));
    }
    write_las_fields(r, f, x);
    if (legacy && !a.scan_angle.empty()) {
      store_le<std::int8_t>(r, 16, static_cast<std::int8_t>(std::lround(a.scan_angle[k])));
    }
    if (!a.gps_time.empty()) store_le<double>(r, las_time_offset(f), a.gps_time[k]);
    if (!a.nir.empty()) store_le<std::uint16_t>(r, las_nir_offset(f), a.nir[k]);
    for (std::size_t e = 0; e < a.extra.size(); ++e) {
      store_extra(r + extra[e]->offset, extra[e]->type,
                  *extra_stored(*extra[e], a.extra[e].values[k]));
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
