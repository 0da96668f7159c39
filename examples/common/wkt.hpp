// A minimal reader of WKT coordinate reference systems (OGC 01-009 WKT1 and ISO 19162 WKT2) as
// a tree: enough for the tools to tell a CRS's kind and units without GDAL. It checks brackets
// and quotes, not the grammar of either standard.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simlod::examples {

struct WktNode {
  std::string keyword;              ///< as written, e.g. "PROJCS", "LENGTHUNIT"
  std::vector<std::string> values;  ///< quoted texts (unquoted) and bare words/numbers, in order
  std::vector<WktNode> children;

  /// True when the keyword is one of `keywords` (ASCII case-insensitive).
  [[nodiscard]] bool is(std::initializer_list<std::string_view> keywords) const;
  /// The first direct child whose keyword is one of `keywords`, nullptr without one.
  [[nodiscard]] const WktNode* child(std::initializer_list<std::string_view> keywords) const;
};

/// ASCII case-insensitive equality: WKT keywords and enumerations ignore case.
[[nodiscard]] bool same_word(std::string_view a, std::string_view b);

/// The tree of `text`, or nullopt when it is not one WKT node (unbalanced brackets or quotes,
/// nesting deeper than 64, text after the closing bracket other than blanks and NULs).
[[nodiscard]] std::optional<WktNode> parse_wkt(std::string_view text);

}  // namespace simlod::examples
