// The CRS of a LAS file from its VLRs (GeoKeys, WKT), and its kind and units.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/byte_load.hpp"
#include "common/las_summary.hpp"
#include "common/wkt.hpp"
#include "simlod/error.hpp"

namespace simlod::examples {
namespace {

/// EPSG length units that LAS files use (GeoTIFF's ProjLinearUnitsGeoKey takes EPSG codes).
struct Unit {
  std::uint16_t code;
  const char* name;
  double metres;
};
constexpr Unit kUnits[] = {{9001, "metre", 1.0},
                           {9002, "foot", 0.3048},
                           {9003, "US survey foot", 1200.0 / 3937.0},
                           {9005, "Clarke's foot", 0.3047972654},
                           {9036, "kilometre", 1000.0}};

const Unit* find_unit(std::optional<std::uint16_t> code) {
  for (const Unit& u : kUnits) {
    if (code && u.code == *code) return &u;
  }
  return nullptr;
}

std::string unit_name(std::optional<std::uint16_t> code) {
  if (!code) return "";
  const Unit* u = find_unit(code);
  return u != nullptr ? u->name : fmt::format("EPSG unit {}", *code);
}

/// The CRS a WKT2 BOUNDCRS (a CRS with a transformation to WGS 84) stands for: its source.
const WktNode* unbound(const WktNode* crs) {
  if (crs == nullptr || !crs->is({"BOUNDCRS"})) return crs;
  const WktNode* source = crs->child({"SOURCECRS"});
  return source != nullptr && !source->children.empty() ? &source->children.front() : nullptr;
}

/// The horizontal and vertical CRS of a WKT: the members of a compound CRS, else the CRS.
struct WktParts {
  const WktNode* horizontal = nullptr;
  const WktNode* vertical = nullptr;
};

bool vertical_kind(const WktNode& n) { return n.is({"VERT_CS", "VERTCRS", "VERTICALCRS"}); }

WktParts wkt_parts(const WktNode& root) {
  const WktNode* crs = unbound(&root);
  if (crs == nullptr) return {};
  if (!crs->is({"COMPD_CS", "COMPOUNDCRS"})) {
    return vertical_kind(*crs) ? WktParts{nullptr, crs} : WktParts{crs, nullptr};
  }
  WktParts parts;
  for (const WktNode& member : crs->children) {
    const WktNode* m = unbound(&member);
    if (m == nullptr || m->is({"AUTHORITY", "ID", "USAGE", "SCOPE", "AREA", "BBOX", "REMARK"})) {
      continue;
    }
    const WktNode*& slot = vertical_kind(*m) ? parts.vertical : parts.horizontal;
    if (slot == nullptr) slot = m;
  }
  return parts;
}

WktParts parts_of(const std::optional<WktNode>& tree) {
  return tree ? wkt_parts(*tree) : WktParts{};
}
WktParts parts_of(const std::optional<WktNode>&&) = delete;  // the parts would dangle

bool geographic_kind(const WktNode& crs) {
  if (crs.is({"GEOGCS", "GEOGCRS", "GEOGRAPHICCRS"})) return true;
  // WKT2 also writes a geographic CRS as a geodetic one with an ellipsoidal coordinate system.
  const WktNode* cs = crs.child({"CS"});
  return crs.is({"GEODCRS", "GEODETICCRS"}) && cs != nullptr && !cs->values.empty() &&
         same_word(cs->values.front(), "ellipsoidal");
}

/// The length unit of a projected or vertical CRS: its own UNIT (WKT1) or LENGTHUNIT (WKT2),
/// else the first axis's (WKT2 may give a unit per axis).
const WktNode* length_unit(const WktNode* crs) {
  if (crs == nullptr) return nullptr;
  if (const WktNode* u = crs->child({"UNIT", "LENGTHUNIT"})) return u;
  for (const WktNode& axis : crs->children) {
    if (!axis.is({"AXIS"})) continue;
    if (const WktNode* u = axis.child({"UNIT", "LENGTHUNIT"})) return u;
  }
  return nullptr;
}

/// The metres per unit of UNIT["name", factor], when it holds a positive finite factor.
std::optional<double> metres_of(const WktNode* unit) {
  if (unit == nullptr || unit->values.size() < 2) return std::nullopt;
  const std::string& text = unit->values[1];
  double f = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), f);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(f) || f <= 0.0) {
    return std::nullopt;
  }
  return f;
}

}  // namespace

std::string LasCrs::text() const {
  std::string s;
  if (epsg) s = fmt::format("EPSG:{}", *epsg);
  if (vertical_epsg) s += fmt::format("{}vertical EPSG:{}", s.empty() ? "" : " + ", *vertical_epsg);
  if (!citation.empty()) s += s.empty() ? citation : fmt::format(" ({})", citation);
  if (!wkt.empty()) s += fmt::format("{}WKT: {}", s.empty() ? "" : "; ", wkt);
  return s.empty() ? "none" : s;
}

bool LasCrs::geographic() const {
  const auto tree = parse_wkt(wkt);  // parts_of points into it
  if (const WktNode* h = parts_of(tree).horizontal) return geographic_kind(*h);
  if (model_type) return *model_type == 2;
  return geographic_epsg && (!epsg || *epsg == *geographic_epsg);
}

double LasCrs::metres_per_unit() const {
  if (geographic()) return 1.0;
  const auto tree = parse_wkt(wkt);
  if (const auto f = metres_of(length_unit(parts_of(tree).horizontal))) return *f;
  const Unit* u = find_unit(linear_units);
  return u != nullptr ? u->metres : 1.0;
}

double LasCrs::vertical_metres_per_unit() const {
  const auto tree = parse_wkt(wkt);
  if (const auto f = metres_of(length_unit(parts_of(tree).vertical))) return *f;
  const Unit* u = find_unit(vertical_units);
  return u != nullptr ? u->metres : metres_per_unit();
}

std::string LasCrs::units_text() const {
  const auto tree = parse_wkt(wkt);
  const WktParts parts = parts_of(tree);
  const auto wkt_name = [](const WktNode* crs) {
    const WktNode* u = length_unit(crs);
    return u != nullptr && !u->values.empty() ? u->values.front() : std::string();
  };
  std::string h = geographic() ? "degree" : wkt_name(parts.horizontal);
  if (h.empty()) h = unit_name(linear_units);
  std::string v = wkt_name(parts.vertical);
  if (v.empty()) v = unit_name(vertical_units);
  if (v.empty()) return h;
  return h.empty() ? "vertical: " + v : fmt::format("{} (vertical: {})", h, v);
}

LasCrs las_crs(const simlod::LasMetadata& metadata) {
  LasCrs crs;
  const simlod::LasVlr *keys = nullptr, *ascii = nullptr;
  for (const auto* list : {&metadata.vlrs, &metadata.evlrs}) {
    for (const simlod::LasVlr& v : *list) {
      if (v.user() != "LASF_Projection") continue;
      if (v.record_id == 34735) keys = &v;
      if (v.record_id == 34737) ascii = &v;
      if (v.record_id == 2112) {
        crs.wkt.assign(reinterpret_cast<const char*>(v.data.data()), v.data.size());
        crs.wkt = crs.wkt.substr(0, crs.wkt.find('\0'));
      }
    }
  }
  if (keys != nullptr) {
    // GeoKeyDirectoryTag: 4 uint16 of header (version, revision, minor, number of keys), then
    // 4 uint16 per key (id, tag location, count, value or offset).
    const std::size_t words = keys->data.size() / 2;
    const std::byte* d = keys->data.data();
    const std::size_t n = words >= 4 ? load<std::uint16_t>(d, 6) : 0;
    if (words < 4 || words < 4 + 4 * n) {
      throw simlod::InvalidInput(fmt::format(
          "the GeoKeyDirectoryTag VLR (LASF_Projection 34735) declares {} keys but holds {} bytes",
          n, keys->data.size()));
    }
    for (std::size_t k = 0; k < n; ++k) {
      const std::byte* e = d + 8 + 8 * k;
      const auto id = load<std::uint16_t>(e, 0), location = load<std::uint16_t>(e, 2),
                 count = load<std::uint16_t>(e, 4), value = load<std::uint16_t>(e, 6);
      if (location == 0 && (id == 3072 || (id == 2048 && !crs.epsg)) && value != 32767) {
        crs.epsg = value;  // 32767: user-defined
      }
      if (location == 0 && id == 4096 && value != 32767) crs.vertical_epsg = value;
      if (location == 0 && id == 2048 && value != 32767) crs.geographic_epsg = value;
      if (location == 0 && id == 1024) crs.model_type = value;
      if (location == 0 && id == 3076) crs.linear_units = value;
      if (location == 0 && id == 4099) crs.vertical_units = value;
      if (location == 34737 && ascii != nullptr && (id == 3073 || id == 2049 || id == 1026) &&
          std::size_t{value} + count <= ascii->data.size()) {
        std::string text(reinterpret_cast<const char*>(ascii->data.data()) + value, count);
        while (!text.empty() && (text.back() == '|' || text.back() == '\0')) text.pop_back();
        if (!text.empty()) crs.citation += (crs.citation.empty() ? "" : "; ") + text;
      }
    }
  }
  return crs;
}

}  // namespace simlod::examples
