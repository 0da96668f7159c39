// LAS/LAZ point attributes: which attributes a point format has, the fields of the extra-bytes
// VLR (LAS 1.4 R15 table 24: user "LASF_Spec", record 4, 192 bytes per field), and the
// decoding of records into PointAttributes' arrays. LasRecordReader is the part of the LAS and
// LAZ readers that returns attributes from their records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/io.hpp"

namespace simlod::detail {

/// The attributes of a LAS point format (0-10).
[[nodiscard]] AttributeMask las_attributes(int point_format);

/// One value of the extra bytes, as the VLR describes it.
struct LasExtraField {
  std::string name;
  int type = 1;             ///< 1-10: uint8, int8, uint16, int16, uint32, int32, uint64,
                            ///< int64, float, double
  std::size_t offset = 0;   ///< byte offset inside the record
  double scale = 1.0;       ///< applied when the VLR's options say so (else 1)
  double value_offset = 0;  ///< likewise (else 0)
};

/// The named fields of the extra-bytes VLR(s) in `metadata` for records of `point_format` and
/// `record_length`: undocumented bytes (type 0) take their `options` bytes and get no field;
/// the deprecated 2- and 3-element types give "name[0]", "name[1]", ... Throws InvalidInput
/// naming `path` and the VLR when its payload is not whole 192-byte descriptors, a type is
/// unknown, a name repeats, or the fields need more bytes than the records' extra bytes.
[[nodiscard]] std::vector<LasExtraField> parse_las_extra_bytes(const LasMetadata& metadata,
                                                               int point_format,
                                                               std::size_t record_length,
                                                               const std::filesystem::path& path);

/// Writes the attributes of `mask` and the `extra` fields (in that order into
/// out.extra) of `n` records into `out`, whose arrays are already sized.
void decode_las_attributes(const std::byte* records, std::size_t n, int point_format,
                           std::size_t record_length, AttributeMask mask,
                           std::span<const LasExtraField> extra, std::size_t first,
                           PointAttributes& out);

/// The twin of decode_las_attributes: writes the attributes that `a` holds (arrays of at least
/// first + n elements) and its extra attributes (by name into `fields`) into n records that
/// already hold their coordinates and colour. Checks everything before writing: InvalidInput
/// naming `path` and the point (`first_index` + i) for a value its field cannot hold, and for
/// attributes the format or the fields lack.
void encode_las_attributes(std::byte* records, std::size_t n, int point_format,
                           std::size_t record_length, const PointAttributes& a, std::size_t first,
                           std::span<const LasExtraField> fields, const std::filesystem::path& path,
                           std::uint64_t first_index);

/// The attribute part of the LAS and LAZ readers.
class LasRecordReader : public PointReader {
 protected:
  /// Once info_ is set: names the extra-bytes fields in info_.extra_attributes (when the
  /// records have extra bytes) and takes the request of `options`. A lying extra-bytes VLR is
  /// an error only when extra attributes are asked for.
  void init_attributes(const ReaderOptions& options);
  std::size_t read_attributes_impl(std::span<Point> out, PointAttributes& attributes) override;

 private:
  std::vector<LasExtraField> fields_;  ///< the asked extra fields, in the order asked
  std::vector<std::byte> records_;
};

}  // namespace simlod::detail
