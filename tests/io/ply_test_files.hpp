// Builds small PLY files for the PLY reader and round-trip tests.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace simlod::test {

struct PlyColumn {
  std::string type;  ///< PLY type name as written in the header ("float", "uint8", ...)
  std::string name;
};

/// Appends `v` converted to the PLY type `type`, little-endian.
inline void append_ply_binary(std::string& out, std::string_view type, double v) {
  const auto put = [&out]<class T>(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
  };
  if (type == "char" || type == "int8") return put(static_cast<std::int8_t>(v));
  if (type == "uchar" || type == "uint8") return put(static_cast<std::uint8_t>(v));
  if (type == "short" || type == "int16") return put(static_cast<std::int16_t>(v));
  if (type == "ushort" || type == "uint16") return put(static_cast<std::uint16_t>(v));
  if (type == "int" || type == "int32") return put(static_cast<std::int32_t>(v));
  if (type == "uint" || type == "uint32") return put(static_cast<std::uint32_t>(v));
  if (type == "float" || type == "float32") return put(static_cast<float>(v));
  return put(v);  // double / float64
}

/// The header lines declaring one element (without "ply", format or end_header).
inline std::string ply_element(std::string_view name, std::size_t count,
                               const std::vector<PlyColumn>& columns) {
  std::string s = fmt::format("element {} {}\n", name, count);
  for (const auto& c : columns) s += fmt::format("property {} {}\n", c.type, c.name);
  return s;
}

/// A whole PLY file with a single vertex element; rows[i][k] is column k of vertex i.
inline std::string ply_file(bool binary, const std::vector<PlyColumn>& columns,
                            const std::vector<std::vector<double>>& rows,
                            std::string_view comment = "") {
  std::string s = "ply\n";
  s += binary ? "format binary_little_endian 1.0\n" : "format ascii 1.0\n";
  if (!comment.empty()) s += fmt::format("comment {}\n", comment);
  s += ply_element("vertex", rows.size(), columns);
  s += "end_header\n";
  for (const auto& row : rows) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      if (binary) {
        append_ply_binary(s, columns[k].type, row[k]);
      } else {
        s += fmt::format("{}{}", k == 0 ? "" : " ", row[k]);
      }
    }
    if (!binary) s += '\n';
  }
  return s;
}

inline void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace simlod::test
