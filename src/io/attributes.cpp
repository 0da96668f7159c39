// Point attributes (simlod/attributes.hpp) and the attribute side of PointReader.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <type_traits>

#include "io/attribute_arrays.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

constexpr std::array<const char*, kAttributeCount> kNames = {"intensity",
                                                             "return_number",
                                                             "number_of_returns",
                                                             "classification",
                                                             "classification_flags",
                                                             "scanner_channel",
                                                             "scan_flags",
                                                             "scan_angle",
                                                             "user_data",
                                                             "point_source_id",
                                                             "gps_time",
                                                             "nir"};

}  // namespace

const char* to_string(Attribute a) {
  const auto i = static_cast<std::size_t>(a);
  return i < kNames.size() ? kNames[i] : "unknown";
}

Attribute attribute_from_string(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (lower == kNames[i]) return static_cast<Attribute>(i);
  }
  throw InvalidInput(fmt::format("'{}' is not an attribute; the attributes are {}", name,
                                 attribute_names(kAllAttributes)));
}

std::string attribute_names(AttributeMask mask) {
  std::string out;
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if ((mask >> i & 1u) == 0) continue;
    if (!out.empty()) out += ", ";
    out += kNames[i];
  }
  return out;
}

void PointAttributes::resize(AttributeMask mask, std::size_t n) {
  detail::for_each_array(*this, [&](Attribute a, auto& v) {
    if (has_attribute(mask, a)) {
      v.resize(n);
    } else {
      v.clear();
    }
  });
  for (Extra& e : extra) e.values.resize(n);
}

void PointAttributes::copy_from(const PointAttributes& from, std::size_t n, std::size_t at,
                                AttributeMask mask) {
  detail::for_each_array(from, [&](Attribute a, const auto& src) {
    if (has_attribute(mask, a) && !src.empty() && src.size() < n) {
      throw InvalidInput(
          fmt::format("copying {} values of {}: the source holds {}", n, to_string(a), src.size()));
    }
  });
  for (const Extra& e : from.extra) {
    if (e.values.size() < n) {
      throw InvalidInput(
          fmt::format("copying {} values of the extra attribute '{}': the source "
                      "holds {}",
                      n, e.name, e.values.size()));
    }
  }
  const auto place = [&](const auto& src, auto& dst) {
    if (dst.size() < at + n) dst.resize(at + n);
    std::copy_n(src.begin(), n, dst.begin() + static_cast<std::ptrdiff_t>(at));
  };
  detail::for_each_array(*this, [&](Attribute a, auto& dst) {
    if (!has_attribute(mask, a)) return;
    detail::for_each_array(from, [&](Attribute b, const auto& src) {
      if constexpr (std::is_same_v<std::decay_t<decltype(dst)>, std::decay_t<decltype(src)>>) {
        if (a == b && !src.empty()) place(src, dst);
      }
    });
  });
  for (const Extra& e : from.extra) {
    auto it =
        std::find_if(extra.begin(), extra.end(), [&](const Extra& x) { return x.name == e.name; });
    if (it == extra.end()) {
      extra.push_back({e.name, {}});
      it = extra.end() - 1;
    }
    place(e.values, it->values);
  }
}

std::size_t PointAttributes::size_of(Attribute which) const {
  std::size_t n = 0;
  detail::for_each_array(*this, [&](Attribute a, const auto& v) {
    if (a == which) n = v.size();
  });
  return n;
}

AttributeMask PointAttributes::present() const {
  AttributeMask mask = 0;
  detail::for_each_array(*this, [&](Attribute a, const auto& v) {
    if (!v.empty()) mask |= attribute_bit(a);
  });
  return mask;
}

const PointAttributes::Extra* PointAttributes::find_extra(std::string_view name) const {
  for (const Extra& e : extra) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::size_t PointReader::read(std::span<Point> out, PointAttributes& attributes) {
  out = out.first(static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), points_left())));
  attributes.extra.resize(wanted_extra_.size());
  for (std::size_t i = 0; i < wanted_extra_.size(); ++i) {
    attributes.extra[i].name = wanted_extra_[i];
  }
  attributes.resize(wanted_attributes_, out.size());
  const bool asked = wanted_attributes_ != 0 || !wanted_extra_.empty();
  const std::size_t n = asked ? read_attributes_impl(out, attributes) : read_impl(out, {});
  points_read_ += n;
  return n;
}

std::size_t PointReader::read_attributes_impl(std::span<Point> /*out*/,
                                              PointAttributes& /*attributes*/) {
  // accept_attribute_request() lets nothing through for files without attributes.
  throw StateError(fmt::format("'{}': the {} reader returns no attributes", info_.path.string(),
                               to_string(info_.format)));
}

void PointReader::accept_attribute_request(const ReaderOptions& options) {
  const AttributeMask missing = options.attributes & ~info_.attributes;
  if ((options.attributes & ~kAllAttributes) != 0) {
    throw InvalidInput(fmt::format("'{}': ReaderOptions::attributes {:#x} has bits of no attribute",
                                   info_.path.string(), options.attributes));
  }
  if (missing != 0) {
    throw InvalidInput(fmt::format(
        "'{}': asked for {} but the {} file{} has no such attribute (it has: {})",
        info_.path.string(), attribute_names(missing), to_string(info_.format),
        info_.point_format >= 0 ? fmt::format(" (point format {})", info_.point_format) : "",
        info_.attributes == 0 ? std::string("none") : attribute_names(info_.attributes)));
  }
  std::vector<std::string> extra;
  if (options.all_extra_attributes) extra = info_.extra_attributes;
  for (const std::string& name : options.extra_attributes) {
    const auto& known = info_.extra_attributes;
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "'" : ", '") + k + "'";
      throw InvalidInput(fmt::format("'{}': asked for the extra attribute '{}' but the file has {}",
                                     info_.path.string(), name, list.empty() ? "none" : list));
    }
    if (std::find(extra.begin(), extra.end(), name) == extra.end()) extra.push_back(name);
  }
  wanted_attributes_ = options.attributes;
  wanted_extra_ = std::move(extra);
}

}  // namespace simlod
