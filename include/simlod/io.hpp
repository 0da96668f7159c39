// Point-cloud file I/O: streaming readers (LAS 1.0-1.4 formats 0-10, LAZ, SIM, PLY) and
// writers (LAS formats 2/7, LAZ, SIM). Readers never load a whole file: each read() fills the
// caller's span with the next points, so the span size is the batch size.
//
// Coordinates: a reader returns Point coordinates relative to a double-precision origin
// (FileInfo::origin, by default the minimum corner of the file's bounds) so that large
// georeferenced coordinates (UTM) keep their precision in float.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod {

enum class FileFormat { Las, Laz, Sim, Ply };

[[nodiscard]] const char* to_string(FileFormat format);

/// Format from a file name's extension (.las, .laz, .sim, .ply, any case); throws InvalidInput.
[[nodiscard]] FileFormat format_from_extension(const std::filesystem::path& path);

/// The point-cloud files that `paths` stand for, in order: a file as it is, a folder as its
/// .las/.laz/.sim/.ply files sorted by name (not recursive); Streamer::open's rule. Throws
/// InvalidInput for no path, a path that does not exist or a folder without such files,
/// IoError for a folder that cannot be listed.
[[nodiscard]] std::vector<std::filesystem::path> point_cloud_files(
    const std::vector<std::filesystem::path>& paths);

/// What a reader knows about its file before reading points.
struct FileInfo {
  std::filesystem::path path;
  FileFormat format = FileFormat::Las;
  std::string version;    ///< "1.2" for LAS/LAZ, "binary_little_endian 1.0" for PLY, "" for SIM
  int point_format = -1;  ///< LAS point data format 0-10, -1 for other formats
  std::uint32_t record_length = 0;  ///< bytes per point record in the file (LAS/SIM/binary PLY)
  std::uint64_t point_count = 0;    ///< points the reader will return
  Bounds bounds;                    ///< file coordinates (from the header; computed for PLY)
  std::array<double, 3> scale{1.0, 1.0, 1.0};   ///< LAS/LAZ only
  std::array<double, 3> offset{0.0, 0.0, 0.0};  ///< LAS/LAZ only
  std::array<double, 3> origin{0.0, 0.0, 0.0};  ///< subtracted from every returned coordinate
  bool has_color = false;   ///< the file stores RGB (otherwise colours are derived)
  bool color_16bit = true;  ///< LAS: RGB fields hold 16-bit values (false: 8-bit stored in 16)
  std::string generator;    ///< LAS "generating software", PLY comment, "" otherwise
  /// Points between positions that PointReader::seek() reaches without decoding what lies
  /// before them: 1 for LAS and SIM, the chunk size for chunked LAZ, 0 when the file can only
  /// be read in order (PLY, LAZ without a chunk table). Parallel loaders split files there.
  std::uint64_t seek_step = 0;
  /// The attributes the file stores (LAS/LAZ: those of its point format; PLY: the vertex
  /// properties named after them, see docs/file-formats.md; SIM: none).
  AttributeMask attributes = 0;
  /// Names of its extra attributes: the fields of a LAS extra-bytes VLR, a PLY vertex's other
  /// scalar properties. Filled by open_reader (read_info leaves it empty for LAS/LAZ).
  std::vector<std::string> extra_attributes{};
};

/// A variable length record of a LAS file, or an extended one (LAS 1.4), as the file stores
/// it: its 54- or 60-byte header's fields and its payload.
struct LasVlr {
  std::array<char, 16> user_id{};  ///< NUL-padded, e.g. "LASF_Projection"
  std::uint16_t record_id = 0;
  std::uint16_t reserved = 0;
  std::array<char, 32> description{};
  std::vector<std::byte> data;

  /// user_id without its NUL padding.
  [[nodiscard]] std::string user() const;
};

/// What a LAS/LAZ file says beside its points: the header fields that describe the data set
/// (not the counts and bounds, which follow from the points), its VLRs and extended VLRs in
/// file order (the coordinate reference system as GeoKeys or WKT, extra-bytes descriptions,
/// classification lookups...). LASzip's own VLR (user "laszip encoded", record 22204), which
/// describes the compression, is left out.
struct LasMetadata {
  std::uint8_t version_minor = 2;  ///< LAS 1.x
  std::uint16_t file_source_id = 0;
  std::uint16_t global_encoding = 0;
  std::array<std::byte, 16> project_guid{};
  std::array<char, 32> system_identifier{};
  std::array<char, 32> generating_software{};
  std::uint16_t creation_day = 0, creation_year = 0;
  std::vector<LasVlr> vlrs;
  std::vector<LasVlr> evlrs;
};

/// Bytes of a LAS point format's record without extra bytes (20-67); InvalidInput for a
/// format outside 0-10.
[[nodiscard]] int las_min_record_length(int point_format);

/// What converting LAS records to another point format or scale could not keep: per
/// attribute, the points whose value was dropped or changed (an attribute the target format
/// lacks counts the points where it was not 0). Attributes the target has and the source lacks
/// are written as 0 and named in `zeroed`.
struct LasTranscodeLoss {
  std::map<std::string, std::uint64_t> points;
  std::vector<std::string> zeroed;
  /// "classification above 31: 120 points, GPS time: 100000 points" ("" when nothing was lost).
  [[nodiscard]] std::string text() const;
};

/// Converts `count` records from point format `from` (`from_length` bytes each) to format `to`
/// (`to_length` bytes each: to's fields, then the source's extra bytes as far as they fit) and,
/// when `scale`/`offset` differ from `from_scale`/`from_offset`, re-quantises the integer
/// coordinates (x = X * scale + offset). Common fields are copied (LAS 1.4 return numbers,
/// classes and the scan angle mapped to the legacy fields and back); `loss` adds up what did
/// not fit. Throws InvalidInput naming the point (`first_index` + its position) whose
/// coordinate leaves the 32-bit range at the new scale.
void transcode_las_records(std::span<const std::byte> in, std::size_t count, int from,
                           std::size_t from_length, const std::array<double, 3>& from_scale,
                           const std::array<double, 3>& from_offset, std::span<std::byte> out,
                           int to, std::size_t to_length, const std::array<double, 3>& scale,
                           const std::array<double, 3>& offset, std::uint64_t first_index,
                           LasTranscodeLoss& loss);

/// The metadata of a LAS or LAZ file (header and VLRs only, cheap). Throws IoError or
/// InvalidInput (a bad header, a VLR list that does not fit), naming the file and byte offset.
[[nodiscard]] LasMetadata read_las_metadata(const std::filesystem::path& path);

struct ReaderOptions {
  /// Origin subtracted from coordinates; default: the minimum corner of the file's bounds
  /// (for PLY, which has no header bounds: 0).
  std::optional<std::array<double, 3>> origin;
  /// Decoder threads for LAZ (0 = all hardware threads). Other formats ignore it.
  unsigned threads = 0;
  /// The attributes read(points, attributes) returns; each must be in FileInfo::attributes,
  /// otherwise open_reader throws InvalidInput naming the file and the attribute.
  AttributeMask attributes = 0;
  /// The extra attributes it returns, by name (FileInfo::extra_attributes); an unknown name is
  /// InvalidInput. A LAS extra-bytes VLR that lies about sizes is InvalidInput naming the VLR
  /// when extra attributes are asked for (otherwise the reader ignores it).
  std::vector<std::string> extra_attributes{};
  /// Returns every extra attribute of the file (with or without extra_attributes).
  bool all_extra_attributes = false;
};

/// Streaming reader. Not thread-safe; one reader per thread.
class PointReader {
 public:
  virtual ~PointReader() = default;
  PointReader(const PointReader&) = delete;
  PointReader& operator=(const PointReader&) = delete;

  [[nodiscard]] const FileInfo& info() const { return info_; }
  /// Points returned so far.
  [[nodiscard]] std::uint64_t points_read() const { return points_read_; }
  [[nodiscard]] std::uint64_t points_left() const { return info_.point_count - points_read_; }

  /// Fills `out` with the next min(out.size(), points_left()) points and returns that count;
  /// 0 means the end. Throws IoError/InvalidInput naming the file, byte offset and point index
  /// on bad data; points returned by earlier calls stay valid.
  std::size_t read(std::span<Point> out) { return read(out, {}); }

  /// read(), and for LAS/LAZ files each point's record as the file stores it (point format
  /// and record length of info(): every attribute, extra bytes included, and the integer
  /// coordinates) into `records`, record_length bytes a point. `records` must hold the
  /// records of out.size() points. Throws InvalidInput for a file that has no LAS records
  /// (SIM, PLY) or a `records` span too small.
  std::size_t read(std::span<Point> out, std::span<std::byte> records) {
    out = out.first(static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), points_left())));
    if (!records.empty()) check_records(out.size(), records.size());
    const std::size_t n = read_impl(out, records);
    points_read_ += n;
    return n;
  }

  /// read(), and the attributes ReaderOptions asked for, one array each (PointAttributes):
  /// element i of every array belongs to out[i]; arrays not asked for are left empty and
  /// `attributes.extra` holds the asked extra attributes in the order asked (all: file order).
  std::size_t read(std::span<Point> out, PointAttributes& attributes);
  /// What read(points, attributes) returns (ReaderOptions, checked at open).
  [[nodiscard]] AttributeMask attributes_requested() const { return wanted_attributes_; }
  [[nodiscard]] const std::vector<std::string>& extra_attributes_requested() const {
    return wanted_extra_;
  }

  /// Moves to point `index` (<= point_count); the next read() starts there. Cheap for LAS and
  /// SIM; LAZ decodes from the start of the chunk holding `index` (free at a chunk start, see
  /// FileInfo::seek_step). Throws InvalidInput naming the file when the format cannot seek
  /// (seek_step 0: PLY, unchunked LAZ) unless `index` is the current position, or when
  /// `index` lies past the end.
  void seek(std::uint64_t index);

 protected:
  PointReader() = default;
  /// Fills all of `out` (already clamped to points_left()) and, when `records` is not empty
  /// (LAS/LAZ readers; checked to hold them), the points' records; returns out.size().
  virtual std::size_t read_impl(std::span<Point> out, std::span<std::byte> records) = 0;
  /// read_impl(), and the attributes asked for into `attributes` (arrays already sized to
  /// out.size()). Called only when something was asked for; readers whose files have
  /// attributes override it.
  virtual std::size_t read_attributes_impl(std::span<Point> out, PointAttributes& attributes);
  /// Takes the request of `options` against info_ (attributes, extra_attributes): throws
  /// InvalidInput naming the file and the first attribute it does not have. Readers call it
  /// at the end of their constructor.
  void accept_attribute_request(const ReaderOptions& options);
  FileInfo info_;

 private:
  void check_records(std::size_t points, std::size_t bytes) const;
  std::uint64_t points_read_ = 0;
  AttributeMask wanted_attributes_ = 0;
  std::vector<std::string> wanted_extra_;
};

/// Opens a reader; the format comes from the extension (.las/.laz/.sim/.ply). Throws IoError
/// (unreadable path) or InvalidInput (bad header), naming the file.
[[nodiscard]] std::unique_ptr<PointReader> open_reader(const std::filesystem::path& path,
                                                       const ReaderOptions& options = {});

/// Reads only the header (cheap); same errors as open_reader.
[[nodiscard]] FileInfo read_info(const std::filesystem::path& path);

struct WriterOptions {
  /// Added to every written coordinate (pass the reader's FileInfo::origin to keep
  /// georeferenced coordinates). SIM stores coordinates as float and ignores the origin.
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  /// LAS/LAZ quantisation step per axis.
  std::array<double, 3> scale{0.001, 0.001, 0.001};
  /// LAS/LAZ point data format: 0 or 2 (LAS 1.2; 0 without colour), 6 or 7 (LAS 1.4) for
  /// write(); any of 0-10 for write_records().
  int las_point_format = 2;
  /// LAS/LAZ header offset; none: the origin rounded to whole units. Records passed to
  /// write_records() hold integers relative to it (keep the input's scale and offset).
  std::optional<std::array<double, 3>> las_offset{};
  /// LAS/LAZ record length; 0: the format's minimum (no extra bytes). write() needs 0.
  std::uint16_t las_record_length = 0;
  /// LAS/LAZ: the header fields, VLRs and extended VLRs to write (read_las_metadata of the
  /// input, to keep them); none: simlod's own header without VLRs. Its LAS version is raised
  /// to 1.4 where the point format or extended VLRs need it.
  std::optional<LasMetadata> las_metadata{};
};

/// Streaming writer; headers that depend on the content (count, bounds) are written by close().
class PointWriter {
 public:
  virtual ~PointWriter() = default;
  PointWriter(const PointWriter&) = delete;
  PointWriter& operator=(const PointWriter&) = delete;

  /// Appends points. Throws IoError on write failure, InvalidInput for non-finite coordinates.
  virtual void write(std::span<const Point> points) = 0;
  /// LAS/LAZ writers: appends point records as they are (WriterOptions' point format and
  /// record length; integer coordinates with its scale and offset), every attribute kept;
  /// counts per return and bounds come from them. Throws InvalidInput for other writers, a
  /// span that is not whole records, or (LAS 1.0-1.3 formats 0-5) more than 2^32 - 1 points.
  virtual void write_records(std::span<const std::byte> records);
  /// write(), and each point's attributes as a reader returns them (element i of every array
  /// that is not empty belongs to points[i]). LAS/LAZ writers put them into the fields of
  /// WriterOptions' point format (any of 0-10; the rest of a record is 0, return 1 of 1 unless
  /// given) and the extra attributes, by name, into the extra bytes that the extra-bytes VLR of
  /// WriterOptions::las_metadata describes (stored = (value - offset) / scale, rounded for
  /// integer fields). Throws InvalidInput, writing nothing, for an attribute the format has no
  /// field for, an extra attribute the VLR does not describe, an array shorter than `points`,
  /// or a value its field cannot hold (naming the point); other writers take only empty
  /// attributes.
  virtual void write_with_attributes(std::span<const Point> points,
                                     const PointAttributes& attributes);
  /// Finishes the file (header, bounds, counts). Called by the destructor if not called, but
  /// only an explicit call reports errors.
  virtual void close() = 0;
  [[nodiscard]] std::uint64_t points_written() const { return points_written_; }

 protected:
  PointWriter() = default;
  std::uint64_t points_written_ = 0;
};

/// Creates a writer for .las, .laz or .sim (by extension); throws InvalidInput for other
/// extensions and IoError when the file cannot be created. The points go to
/// "<path>.partial-<pid>" first; close() renames that over `path`, so a failed or killed
/// writer never leaves a partial file under `path`, and an older file there stays until the
/// new one is complete. A writer destroyed while an exception unwinds removes its partial file;
/// one destroyed without close() otherwise finishes the file as close() would.
[[nodiscard]] std::unique_ptr<PointWriter> create_writer(const std::filesystem::path& path,
                                                         const WriterOptions& options = {});

/// True when this build can read and write LAZ (LASzip was found at build time).
[[nodiscard]] bool laz_supported();

}  // namespace simlod
