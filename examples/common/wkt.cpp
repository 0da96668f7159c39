#include "common/wkt.hpp"

#include <cctype>

namespace simlod::examples {
namespace {

// A LAS file's WKT is untrusted input: recursion is bounded so that a hostile nesting cannot
// overflow the stack (real CRS definitions nest fewer than 10 levels).
constexpr int kMaxDepth = 64;

bool blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '\0'; }
bool opens(char c) { return c == '[' || c == '('; }
bool closes(char c) { return c == ']' || c == ')'; }

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<WktNode> document() {
    auto node = word();
    if (!node || !this->node(*node, 0)) return std::nullopt;
    skip_blanks();
    if (at_ != s_.size()) return std::nullopt;
    return node;
  }

 private:
  void skip_blanks() {
    while (at_ < s_.size() && blank(s_[at_])) ++at_;
  }

  /// A bare word (keyword, enumeration, number) as a node without brackets yet.
  std::optional<WktNode> word() {
    skip_blanks();
    const std::size_t start = at_;
    while (at_ < s_.size() && !blank(s_[at_]) && !opens(s_[at_]) && !closes(s_[at_]) &&
           s_[at_] != ',' && s_[at_] != '"') {
      ++at_;
    }
    if (at_ == start) return std::nullopt;
    WktNode n;
    n.keyword = s_.substr(start, at_ - start);
    return n;
  }

  /// A quoted text; a doubled quote stands for one quote (ISO 19162).
  std::optional<std::string> quoted() {
    std::string text;
    for (++at_; at_ < s_.size(); ++at_) {
      if (s_[at_] != '"') {
        text += s_[at_];
      } else if (at_ + 1 < s_.size() && s_[at_ + 1] == '"') {
        text += '"';
        ++at_;
      } else {
        ++at_;
        return text;
      }
    }
    return std::nullopt;
  }

  /// The bracketed part of `n`, whose keyword was just read.
  bool node(WktNode& n, int depth) {
    skip_blanks();
    if (depth >= kMaxDepth || at_ == s_.size() || !opens(s_[at_])) return false;
    ++at_;
    for (bool first = true;; first = false) {
      skip_blanks();
      if (at_ == s_.size()) return false;
      if (closes(s_[at_]) && first) break;
      if (s_[at_] == '"') {
        auto text = quoted();
        if (!text) return false;
        n.values.push_back(std::move(*text));
      } else {
        auto item = word();
        if (!item) return false;
        skip_blanks();
        if (at_ < s_.size() && opens(s_[at_])) {
          if (!node(*item, depth + 1)) return false;
          n.children.push_back(std::move(*item));
        } else {
          n.values.push_back(std::move(item->keyword));
        }
      }
      skip_blanks();
      if (at_ == s_.size()) return false;
      if (closes(s_[at_])) break;
      if (s_[at_++] != ',') return false;
    }
    ++at_;
    return true;
  }

  std::string_view s_;
  std::size_t at_ = 0;
};

}  // namespace

bool same_word(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool WktNode::is(std::initializer_list<std::string_view> keywords) const {
  for (const std::string_view k : keywords) {
    if (same_word(keyword, k)) return true;
  }
  return false;
}

const WktNode* WktNode::child(std::initializer_list<std::string_view> keywords) const {
  for (const WktNode& c : children) {
    if (c.is(keywords)) return &c;
  }
  return nullptr;
}

std::optional<WktNode> parse_wkt(std::string_view text) { return Parser(text).document(); }

}  // namespace simlod::examples
