// Minimal JSON text helpers for the example programs (output only; fmt does the numbers).
#pragma once

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace simlod::examples {

namespace detail {
// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid UTF-8.
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
    cp = b & 0x1Fu;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    cp = b & 0x0Fu;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    cp = b & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (c & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  const bool invalid = cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF);
  return overlong || invalid ? 0 : n;
}
}  // namespace detail

/// A quoted JSON string. Valid UTF-8 passes through; other bytes (file headers may hold
/// Latin-1 or garbage) are escaped as the Latin-1 code point so the output is always valid.
inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\u{:04x}", c);
    } else if (c >= 0x80) {
      if (const std::size_t n = detail::utf8_length(s, i)) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return out;
}

/// A JSON number; NaN and infinities (not representable in JSON) become null.
inline std::string json_number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : std::string("null");
}

inline std::string json_array(const std::array<double, 3>& v) {
  return fmt::format("[{}, {}, {}]", json_number(v[0]), json_number(v[1]), json_number(v[2]));
}

}  // namespace simlod::examples
