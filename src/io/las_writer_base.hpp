// What the LAS and LAZ writers share: the options' checks and quantisation, write() encoding
// simlod points as records (point formats 0, 2, 6, 7), write_records()' checks, the counts by
// return and the bounds of what was written, and the header fields. A writer adds only where
// the records go (put()) and how the file starts and ends.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "io/las_attributes.hpp"
#include "io/las_header_encode.hpp"
#include "io/las_quantizer.hpp"
#include "simlod/io.hpp"

namespace simlod::detail {

class LasWriterBase : public PointWriter {
 public:
  void write(std::span<const Point> points) final;
  void write_records(std::span<const std::byte> records) final;
  void write_with_attributes(std::span<const Point> points,
                             const PointAttributes& attributes) final;

 protected:
  /// Checks the options (InvalidInput naming `path`); creates nothing.
  LasWriterBase(const std::filesystem::path& path, const WriterOptions& options);

  /// Writes whole records of the writer's format (checked; points_written() is the index of
  /// the first). Counted by the caller after it returns.
  virtual void put(std::span<const std::byte> records) = 0;

  /// The header fields of what was written so far: format, record length, counts by return,
  /// scale, offset, bounds, metadata with its VLR and extended VLR counts. The positions of
  /// the (extended) VLRs are the writer's.
  [[nodiscard]] LasHeaderFields header_fields() const;

  std::filesystem::path path_;
  LasQuantizer quantizer_;
  int point_format_;
  std::uint16_t record_length_;
  std::optional<LasMetadata> metadata_;
  bool closed_ = false;

 private:
  /// IoError after close(); InvalidInput when `adding` more points exceed what a LAS 1.0-1.3
  /// header of formats 0-5 can count.
  void check_open(std::size_t adding) const;
  /// put(), then counts the records.
  void append(std::span<const std::byte> records);

  RecordTally tally_;
  std::optional<std::vector<LasExtraField>> extra_fields_;  ///< parsed at first need
  std::vector<std::byte> buffer_;
};

}  // namespace simlod::detail
