#include "io/ply_layout.hpp"

#include <fmt/format.h>

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
  return layout;
}

}  // namespace simlod::detail
