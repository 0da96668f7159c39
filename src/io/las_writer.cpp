// Streaming LAS writer (io/las_writer_base.hpp: write() and write_records()). The header and
// the VLRs are written first (counts zero), the extended VLRs after the points by close(),
// which then writes the header again with the final counts, bounds and positions.
#include <vector>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/las_metadata.hpp"
#include "io/las_writer_base.hpp"

namespace simlod::detail {
namespace {

class LasWriter final : public LasWriterBase {
 public:
  // The VLRs are encoded (and checked) before the file is created.
  LasWriter(const std::filesystem::path& path, const WriterOptions& options)
      : LasWriterBase(path, options), vlrs_(encode_vlrs(metadata_)), file_(path) {
    file_.write(encode_las_header(fields()));
    file_.write(vlrs_);
  }

  ~LasWriter() override {
    try {
      close();
    } catch (...) {
      // Only an explicit close() reports errors (PointWriter contract).
    }
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    LasHeaderFields f = fields();
    if (metadata_ && !metadata_->evlrs.empty()) {
      // Extended VLRs follow the points; the waveform data packet record's position goes into
      // the header too.
      f.evlr_start = las_header_size_of_version(las_version_minor(f)) + vlrs_.size() +
                     points_written_ * record_length_;
      file_.write(encode_evlrs(metadata_->evlrs, f.evlr_start, f.waveform_start));
    }
    file_.write_at(0, encode_las_header(f));
    file_.close();
  }

 private:
  void put(std::span<const std::byte> records) override { file_.write(records); }

  LasHeaderFields fields() const {
    LasHeaderFields f = header_fields();
    f.vlr_bytes = vlrs_.size();
    return f;
  }

  static std::vector<std::byte> encode_vlrs(const std::optional<LasMetadata>& metadata) {
    std::vector<std::byte> out;
    if (metadata) {
      for (const LasVlr& vlr : metadata->vlrs) append_vlr(out, vlr);
    }
    return out;
  }

  std::vector<std::byte> vlrs_;  ///< the encoded VLRs
  OutputFile file_;
};

}  // namespace

std::unique_ptr<PointWriter> create_las_writer(const std::filesystem::path& path,
                                               const WriterOptions& options) {
  return std::make_unique<LasWriter>(path, options);
}

}  // namespace simlod::detail
