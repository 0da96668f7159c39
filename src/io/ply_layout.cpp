#include "io/ply_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

std::optional<PlyField> find_field(const PlyElement& vertex, std::string_view name,
                                   std::string_view alias = {}) {
  std::uint32_t offset = 0;
  for (std::size_t i = 0; i < vertex.properties.size(); ++i) {
    const PlyProperty& p = vertex.properties[i];
    if (p.name == name || (!alias.empty() && p.name == alias)) return PlyField{i, p.type, offset};
    offset += static_cast<std::uint32_t>(ply_type_size(p.type));
  }
  return std::nullopt;
}

/// The attribute a PLY property name stands for, or -1.
int attribute_of(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (n.starts_with("scalar_")) n.erase(0, 7);
  struct Alias {
    std::string_view name;
    Attribute attribute;
  };
  static constexpr Alias kAliases[] = {
      {"intensity", Attribute::Intensity},
      {"classification", Attribute::Classification},
      {"return_number", Attribute::ReturnNumber},
      {"returnnumber", Attribute::ReturnNumber},
      {"number_of_returns", Attribute::NumberOfReturns},
      {"numberofreturns", Attribute::NumberOfReturns},
      {"point_source_id", Attribute::PointSourceId},
      {"pointsourceid", Attribute::PointSourceId},
      {"gps_time", Attribute::GpsTime},
      {"gpstime", Attribute::GpsTime},
      {"user_data", Attribute::UserData},
      {"scan_angle", Attribute::ScanAngle},
      {"scan_angle_rank", Attribute::ScanAngle},
      {"scanner_channel", Attribute::ScannerChannel},
      {"nir", Attribute::Nir},
  };
  for (const Alias& a : kAliases) {
    if (n == a.name) return static_cast<int>(a.attribute);
  }
  return -1;
}

}  // namespace

PlyVertexLayout make_vertex_layout(const PlyHeader& header, const std::filesystem::path& path) {
  const std::string file = path.string();
  std::optional<std::size_t> element;
  for (std::size_t i = 0; i < header.elements.size(); ++i) {
    if (header.elements[i].name == "vertex") {
      element = i;
      break;
    }
  }
  if (!element) throw InvalidInput(fmt::format("'{}': the PLY file has no 'vertex' element", file));
  const PlyElement& vertex = header.elements[*element];
  if (const PlyProperty* list = vertex.first_list()) {
    throw InvalidInput(
        fmt::format("'{}': the PLY vertex element has a list property '{}', which is not supported",
                    file, list->name));
  }

  PlyVertexLayout layout;
  layout.element = *element;
  layout.property_count = vertex.properties.size();
  // Property counts are header-sized; 32 bits cannot overflow for any real header.
  layout.record_bytes = static_cast<std::uint32_t>(vertex.record_bytes());
  constexpr std::array<std::string_view, 3> kAxes{"x", "y", "z"};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto field = find_field(vertex, kAxes[a]);
    if (!field) {
      throw InvalidInput(
          fmt::format("'{}': the PLY vertex element has no '{}' property", file, kAxes[a]));
    }
    layout.xyz[a] = *field;
  }

  const auto r = find_field(vertex, "red", "diffuse_red");
  const auto g = find_field(vertex, "green", "diffuse_green");
  const auto b = find_field(vertex, "blue", "diffuse_blue");
  if (r && g && b) {
    layout.has_color = true;
    layout.rgb = {*r, *g, *b};
    layout.color_16bit = ply_type_size(r->type) == 2;
    if (const auto a = find_field(vertex, "alpha", "diffuse_alpha")) {
      layout.has_alpha = true;
      layout.alpha = *a;
    }
  }
  auto used = [&](std::size_t i) {
    for (const PlyField& f : layout.xyz) {
      if (f.index == i) return true;
    }
    if (layout.has_color) {
      for (const PlyField& f : layout.rgb) {
        if (f.index == i) return true;
      }
      if (layout.has_alpha && layout.alpha.index == i) return true;
    }
    return false;
  };
  std::uint32_t offset = 0;
  AttributeMask taken = 0;
  for (std::size_t i = 0; i < vertex.properties.size(); ++i) {
    const PlyProperty& p = vertex.properties[i];
    const std::uint32_t at = offset;
    offset += static_cast<std::uint32_t>(ply_type_size(p.type));
    if (used(i)) continue;
    int attribute = attribute_of(p.name);
    if (attribute >= 0) {
      const AttributeMask bit = attribute_bit(static_cast<Attribute>(attribute));
      if ((taken & bit) != 0) attribute = -1;
      taken |= bit;
    }
    layout.scalars.push_back(PlyScalar{PlyField{i, p.type, at}, p.name, attribute});
  }
  return layout;
}

}  // namespace simlod::detail
