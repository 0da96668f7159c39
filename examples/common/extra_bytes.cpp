#include "common/extra_bytes.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace simlod::examples {
namespace {

constexpr std::size_t kFieldBytes = 192;
constexpr std::size_t kTypeAt = 2, kOptionsAt = 3, kNameAt = 4, kNoDataAt = 40,
                      kDescriptionAt = 160;

bool is_extra_bytes(const LasVlr& v) { return v.user() == "LASF_Spec" && v.record_id == 4; }

LasVlr empty_extra_bytes_vlr() {
  LasVlr v;
  const std::string user = "LASF_Spec";
  std::copy(user.begin(), user.end(), v.user_id.begin());
  v.record_id = 4;
  const std::string description = "Extra Bytes Record";
  std::copy(description.begin(), description.end(), v.description.begin());
  return v;
}

}  // namespace

bool add_extra_bytes_field(LasVlr& vlr, std::string_view name, std::uint8_t type,
                           std::string_view description, std::optional<double> no_data) {
  if (!is_extra_bytes(vlr)) vlr = empty_extra_bytes_vlr();
  const std::size_t at = vlr.data.size();
  vlr.data.resize(at + kFieldBytes, std::byte{0});
  std::byte* d = vlr.data.data() + at;
  d[kTypeAt] = std::byte{type};
  // An empty view may hold a null pointer, which memcpy must not get even for 0 bytes.
  if (!name.empty()) std::memcpy(d + kNameAt, name.data(), std::min<std::size_t>(name.size(), 32));
  if (!description.empty()) {
    std::memcpy(d + kDescriptionAt, description.data(),
                std::min<std::size_t>(description.size(), 32));
  }
  if (no_data) {
    d[kOptionsAt] = std::byte{1};                           // no_data_bit
    std::memcpy(d + kNoDataAt, &*no_data, sizeof(double));  // floating types: a double
  }
  return name.size() > 32;
}

LasVlr& extra_bytes_vlr(LasMetadata& metadata) {
  auto& vlrs = metadata.vlrs;
  const auto it = std::find_if(vlrs.begin(), vlrs.end(), is_extra_bytes);
  if (it != vlrs.end()) return *it;
  vlrs.push_back(empty_extra_bytes_vlr());
  return vlrs.back();
}

}  // namespace simlod::examples
