// LAS point records and metadata end to end: readers deliver each point's record as the file
// stores it (LAS: the bytes; LAZ: LASzip's point encoded back, checked against the LAS file of
// the same points and against the rule the shared formats/ files were written by), writers take
// records of any format with the input's header fields, VLRs and extended VLRs, and a round
// trip LAS/LAZ -> LAS/LAZ keeps every record byte for byte. Plus the bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "las_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

namespace fs = std::filesystem;

struct Records {
  FileInfo info;
  std::vector<std::byte> bytes;
};

/// Every record of `path`, read in batches of `batch` points.
Records read_records(const fs::path& path, std::size_t batch = 7'777) {
  ReaderOptions options;
  options.threads = 3;
  auto reader = open_reader(path, options);
  Records r{reader->info(), {}};
  std::vector<Point> points(batch);
  std::vector<std::byte> records(batch * r.info.record_length);
  for (std::size_t n; (n = reader->read(points, records)) > 0;) {
    r.bytes.insert(r.bytes.end(), records.begin(),
                   records.begin() + static_cast<std::ptrdiff_t>(n * r.info.record_length));
  }
  return r;
}

/// The point records of an uncompressed LAS file, straight from its bytes.
std::vector<std::byte> file_records(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> file{std::istreambuf_iterator<char>(in), {}};
  std::uint32_t offset = 0;
  std::uint16_t length = 0;
  std::memcpy(&offset, file.data() + 96, 4);
  std::memcpy(&length, file.data() + 105, 2);
  const FileInfo info = read_info(path);
  const auto* begin = reinterpret_cast<const std::byte*>(file.data()) + offset;
  return {begin, begin + info.point_count * length};
}

template <class T>
T field(const std::vector<std::byte>& records, std::size_t length, std::size_t i,
        std::size_t offset) {
  T v;
  std::memcpy(&v, records.data() + i * length + offset, sizeof(T));
  return v;
}

bool has_laz_only(int format) {
  return format == 0 || format == 2 || format == 4 || format == 5 || format == 10;
}

/// The rule of the shared formats/ files (their README), checked on every record.
void expect_rule(const Records& r) {
  const int f = r.info.point_format;
  const std::size_t len = r.info.record_length;
  ASSERT_EQ(r.bytes.size(), 100'000 * len);
  const bool time = f != 0 && f != 2;
  const std::size_t rgb = f == 2                          ? 20
                          : (f == 3 || f == 5)            ? 28
                          : (f == 7 || f == 8 || f == 10) ? 30
                                                          : 0;
  for (std::size_t i = 0; i < 100'000; ++i) {
    ASSERT_EQ(field<std::int32_t>(r.bytes, len, i, 0), static_cast<std::int32_t>(i % 1000)) << i;
    ASSERT_EQ(field<std::int32_t>(r.bytes, len, i, 4), static_cast<std::int32_t>(i / 1000)) << i;
    ASSERT_EQ(field<std::int32_t>(r.bytes, len, i, 8), static_cast<std::int32_t>((i * 7) % 500));
    ASSERT_EQ(field<std::uint16_t>(r.bytes, len, i, 12), i & 0xFFFF) << i;
    if (time) {
      const double t = field<double>(r.bytes, len, i, f > 5 ? 22 : 20);
      ASSERT_NEAR(t, static_cast<double>(i) * 0.001, 1e-9) << i;
    }
    if (rgb != 0) {
      ASSERT_EQ(field<std::uint16_t>(r.bytes, len, i, rgb), i & 255) << i;
    }
    if (f == 8 || f == 10) {
      ASSERT_EQ(field<std::uint16_t>(r.bytes, len, i, 36), 7) << i;
    }
    if (f > 5) {
      ASSERT_EQ(field<std::uint8_t>(r.bytes, len, i, 16), i % 20) << i;
      ASSERT_EQ(field<std::uint8_t>(r.bytes, len, i, 14), 0x11) << i;  // return 1 of 1
    } else {
      ASSERT_EQ(field<std::uint8_t>(r.bytes, len, i, 14) & 0x3F, 0x09) << i;
    }
  }
}

TEST(LasRecords, ReadersDeliverTheFileRecords) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  for (int f = 0; f <= 10; ++f) {
    SCOPED_TRACE(f);
    if (!has_laz_only(f)) {
      const fs::path las = data / "formats" / ("f" + std::to_string(f) + ".las");
      const Records r = read_records(las);
      EXPECT_EQ(r.bytes, file_records(las));
      expect_rule(r);
      if (laz_supported()) {
        // LASzip's points encoded back are the LAS file's records, byte for byte.
        EXPECT_EQ(read_records(data / "formats" / ("f" + std::to_string(f) + ".laz"), 50'001).bytes,
                  r.bytes);
      }
    } else if (laz_supported()) {
      expect_rule(read_records(data / "formats" / ("f" + std::to_string(f) + ".laz")));
    }
  }
}

/// Writes `r` with the metadata of `source` to `out` (its format from the extension).
void write_copy(const Records& r, const LasMetadata& metadata, const fs::path& out) {
  WriterOptions w;
  w.scale = r.info.scale;
  w.las_offset = r.info.offset;
  w.las_point_format = r.info.point_format;
  w.las_record_length = static_cast<std::uint16_t>(r.info.record_length);
  w.las_metadata = metadata;
  auto writer = create_writer(out, w);
  // Uneven pieces, to cross the writers' blocks and LASzip's chunks.
  const std::size_t len = r.info.record_length;
  for (std::size_t at = 0; at < r.bytes.size();) {
    const std::size_t n = std::min(r.bytes.size() - at, 33'333 * len);
    writer->write_records(std::span(r.bytes).subspan(at, n));
    at += n;
  }
  writer->close();
}

void expect_same_vlrs(const std::vector<LasVlr>& a, const std::vector<LasVlr>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].user_id, b[i].user_id);
    EXPECT_EQ(a[i].record_id, b[i].record_id);
    EXPECT_EQ(a[i].description, b[i].description);
    EXPECT_EQ(a[i].data, b[i].data);
  }
}

TEST(LasRecords, RoundTripKeepsEveryRecordAndVlr) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  TempDir dir;
  for (const fs::path& in : {data / "formats" / "f1.las", data / "formats" / "f6.las",
                             data / "formats" / "f9.las", data / "haystack_rock.las"}) {
    SCOPED_TRACE(in.string());
    const Records r = read_records(in);
    const LasMetadata m = read_las_metadata(in);
    write_copy(r, m, dir / "copy.las");
    const Records back = read_records(dir / "copy.las");
    EXPECT_EQ(back.bytes, r.bytes);
    EXPECT_EQ(back.info.bounds, r.info.bounds);
    EXPECT_EQ(back.info.scale, r.info.scale);
    EXPECT_EQ(back.info.offset, r.info.offset);
    EXPECT_EQ(back.info.version, r.info.version);
    const LasMetadata mb = read_las_metadata(dir / "copy.las");
    expect_same_vlrs(mb.vlrs, m.vlrs);
    EXPECT_EQ(mb.system_identifier, m.system_identifier);
    EXPECT_EQ(mb.generating_software, m.generating_software);
    EXPECT_EQ(mb.global_encoding, m.global_encoding);
    EXPECT_EQ(mb.project_guid, m.project_guid);
    if (!laz_supported()) continue;
    write_copy(r, m, dir / "copy.laz");
    const Records z = read_records(dir / "copy.laz", 20'000);
    EXPECT_EQ(z.bytes, r.bytes);
    EXPECT_EQ(z.info.bounds, r.info.bounds);
    expect_same_vlrs(read_las_metadata(dir / "copy.laz").vlrs, m.vlrs);
  }
  // haystack_rock.las keeps its coordinate reference system (GeoKeyDirectoryTag, 34735).
  const LasMetadata m = read_las_metadata(data / "haystack_rock.las");
  bool geokeys = false;
  for (const LasVlr& v : m.vlrs) geokeys |= v.user() == "LASF_Projection" && v.record_id == 34735;
  EXPECT_TRUE(geokeys);
}

TEST(LasRecords, ExtendedVlrsAndExtraBytesSurvive) {
  TempDir dir;
  // Format 6 with 3 extra bytes a point, one VLR and two extended VLRs, as LAS and LAZ.
  constexpr std::uint16_t kLength = 33;
  std::vector<std::byte> records(1000 * kLength);
  for (std::size_t i = 0; i < 1000; ++i) {
    std::byte* r = records.data() + i * kLength;
    const std::int32_t xyz[3] = {static_cast<std::int32_t>(i), -static_cast<std::int32_t>(i), 7};
    std::memcpy(r, xyz, 12);
    r[14] = std::byte{static_cast<unsigned char>(((i % 3) + 1) | (3 << 4))};  // return (i%3)+1 of 3
    r[16] = std::byte{static_cast<unsigned char>(i % 200)};                   // classes above 31
    for (std::size_t k = 30; k < kLength; ++k) r[k] = std::byte{static_cast<unsigned char>(i + k)};
  }
  LasMetadata m;
  m.version_minor = 4;
  m.global_encoding = 0x10;
  auto vlr = [](const char* user, std::uint16_t id, std::size_t size) {
    LasVlr v;
    std::strncpy(v.user_id.data(), user, v.user_id.size());
    v.record_id = id;
    std::strncpy(v.description.data(), "test record", v.description.size());
    for (std::size_t k = 0; k < size; ++k)
      v.data.push_back(std::byte{static_cast<unsigned char>(k)});
    return v;
  };
  m.vlrs = {vlr("LASF_Spec", 4, 192)};
  m.evlrs = {vlr("LASF_Projection", 2112, 100'000), vlr("simlod_test", 1, 5)};
  for (const char* name : {"e.las", "e.laz"}) {
    if (std::string(name) == "e.laz" && !laz_supported()) continue;
    SCOPED_TRACE(name);
    WriterOptions w;
    w.scale = {0.01, 0.01, 0.01};
    w.las_offset = std::array<double, 3>{100.0, 200.0, 0.0};
    w.las_point_format = 6;
    w.las_record_length = kLength;
    w.las_metadata = m;
    auto writer = create_writer(dir / name, w);
    writer->write_records(records);
    writer->close();
    const Records back = read_records(dir / name, 333);
    EXPECT_EQ(back.bytes, records);
    EXPECT_EQ(back.info.offset, (std::array<double, 3>{100.0, 200.0, 0.0}));
    const LasMetadata mb = read_las_metadata(dir / name);
    expect_same_vlrs(mb.vlrs, m.vlrs);
    expect_same_vlrs(mb.evlrs, m.evlrs);
  }
}

/// One record of format `f` with the given fields (the other bytes 0).
std::vector<std::byte> one_record(int f, std::int32_t x, unsigned ret, unsigned classification) {
  std::vector<std::byte> r(static_cast<std::size_t>(las_min_record_length(f)));
  std::memcpy(r.data(), &x, 4);
  r[12] = std::byte{42};  // intensity
  if (f > 5) {
    r[14] = std::byte{static_cast<unsigned char>(ret | (ret << 4))};
    r[16] = std::byte{static_cast<unsigned char>(classification)};
  } else {
    r[14] = std::byte{static_cast<unsigned char>(ret | (ret << 3))};
    r[15] = std::byte{static_cast<unsigned char>(classification)};
  }
  return r;
}

TEST(LasRecords, TranscodingKeepsWhatFitsAndCountsTheRest) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const Records r = read_records(data / "formats" / "f8.las");
  const std::array<double, 3> scale = r.info.scale, offset = r.info.offset;
  // Format 8 (time, RGB, NIR, classes 0-19) to 1 (time, legacy classes) and back.
  std::vector<std::byte> f1(100'000 * 28), back(100'000 * 38);
  LasTranscodeLoss loss;
  transcode_las_records(r.bytes, 100'000, 8, 38, scale, offset, f1, 1, 28, scale, offset, 0, loss);
  EXPECT_EQ(loss.points["RGB"], 100'000u - 391u);  // red = i & 255: black where i % 256 == 0
  EXPECT_EQ(loss.points["NIR"], 100'000u);
  EXPECT_EQ(loss.points.count("classification above 31"), 0u);
  LasTranscodeLoss back_loss;
  transcode_las_records(f1, 100'000, 1, 28, scale, offset, back, 8, 38, scale, offset, 0,
                        back_loss);
  EXPECT_TRUE(back_loss.points.empty()) << back_loss.text();
  EXPECT_EQ(back_loss.zeroed, (std::vector<std::string>{"RGB", "NIR"}));
  for (std::size_t i = 0; i < 100'000; ++i) {
    ASSERT_EQ(std::memcmp(back.data() + i * 38, r.bytes.data() + i * 38, 30), 0) << i;
  }
  // LAS 1.4 classes and return numbers the legacy fields cannot hold.
  LasTranscodeLoss narrow;
  std::vector<std::byte> out(20);
  transcode_las_records(one_record(6, 5, 9, 200), 1, 6, 30, scale, offset, out, 0, 20, scale,
                        offset, 0, narrow);
  EXPECT_EQ(narrow.points["classification above 31"], 1u);
  EXPECT_EQ(narrow.points["return numbers above 7"], 1u);
  EXPECT_EQ(static_cast<unsigned>(out[15]) & 31u, 0u);
  EXPECT_EQ(static_cast<unsigned>(out[14]) & 7u, 7u);
  // A coarser scale rounds; one that puts a coordinate outside 32 bits is refused.
  LasTranscodeLoss coarse;
  transcode_las_records(one_record(0, 12345, 1, 2), 1, 0, 20, {0.01, 0.01, 0.01}, {}, out, 0, 20,
                        {0.1, 0.1, 0.1}, {}, 0, coarse);
  std::int32_t x = 0;
  std::memcpy(&x, out.data(), 4);
  EXPECT_EQ(x, 1235);
  EXPECT_EQ(coarse.points["coordinates rounded to the new scale"], 1u);
  try {
    transcode_las_records(one_record(0, 2'000'000'000, 1, 2), 1, 0, 20, {1.0, 1.0, 1.0}, {}, out, 0,
                          20, {0.001, 0.001, 0.001}, {}, 77, coarse);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("point 77"), std::string::npos) << e.what();
  }
  EXPECT_THROW(transcode_las_records(one_record(0, 1, 1, 2), 1, 0, 20, scale, offset, out, 1, 28,
                                     scale, offset, 0, coarse),
               InvalidInput);  // the output span holds 20 bytes, not 28
}

// Points written with write() after records start from a clean record: nothing of the record
// before them (its class, GPS time) carries over, in LAS and LAZ alike.
TEST(LasRecords, PointsAfterRecordsKeepNothingOfThem) {
  TempDir dir;
  for (const char* name : {"m.las", "m.laz"}) {
    if (std::string(name) == "m.laz" && !laz_supported()) continue;
    SCOPED_TRACE(name);
    WriterOptions w;
    w.las_point_format = 7;
    auto writer = create_writer(dir / name, w);
    std::vector<std::byte> record = one_record(7, 5, 2, 17);
    const double time = 123.5;
    std::memcpy(record.data() + 22, &time, 8);
    writer->write_records(record);
    writer->write(synthetic_points(3));
    writer->close();
    const Records back = read_records(dir / name);
    ASSERT_EQ(back.bytes.size(), 4u * 36u);
    EXPECT_EQ(field<std::uint8_t>(back.bytes, 36, 0, 16), 17u);
    for (std::size_t i = 1; i < 4; ++i) {
      EXPECT_EQ(field<std::uint8_t>(back.bytes, 36, i, 16), 0u) << i;     // class
      EXPECT_EQ(field<double>(back.bytes, 36, i, 22), 0.0) << i;          // GPS time
      EXPECT_EQ(field<std::uint8_t>(back.bytes, 36, i, 14), 0x11u) << i;  // return 1 of 1
    }
  }
}

TEST(LasRecords, BadRequestsAreClearErrors) {
  TempDir dir;
  const auto points = synthetic_points(100);
  write_points(dir / "a.las", points, WriterOptions{});
  write_points(dir / "a.sim", points, WriterOptions{});
  {  // a records span too small for the batch
    auto reader = open_reader(dir / "a.las");
    std::vector<Point> out(10);
    std::vector<std::byte> records(10 * reader->info().record_length - 1);
    EXPECT_THROW((void)reader->read(out, records), InvalidInput);
    EXPECT_EQ(reader->points_read(), 0u);  // nothing was consumed
  }
  {  // a format without LAS records
    auto reader = open_reader(dir / "a.sim");
    std::vector<Point> out(10);
    std::vector<std::byte> records(1000);
    try {
      (void)reader->read(out, records);
      FAIL() << "no error";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("has no LAS point records"), std::string::npos)
          << e.what();
    }
  }
  {  // records to a writer that does not take them, or not whole records
    auto sim = create_writer(dir / "b.sim", WriterOptions{});
    EXPECT_THROW(sim->write_records(std::vector<std::byte>(26)), InvalidInput);
    auto las = create_writer(dir / "b.las", WriterOptions{});
    EXPECT_THROW(las->write_records(std::vector<std::byte>(27)), InvalidInput);
    las->write_records(std::vector<std::byte>(26 * 2));
    las->close();
    EXPECT_EQ(read_info(dir / "b.las").point_count, 2u);
  }
  {  // write() needs format 0, 2, 6 or 7 without extra bytes
    WriterOptions w;
    w.las_point_format = 8;
    auto las = create_writer(dir / "c.las", w);
    EXPECT_THROW(las->write(points), InvalidInput);
    w.las_point_format = 2;
    w.las_record_length = 30;
    auto longer = create_writer(dir / "d.las", w);
    EXPECT_THROW(longer->write(points), InvalidInput);
  }
  {  // options the writer refuses before creating anything
    WriterOptions w;
    w.las_point_format = 11;
    EXPECT_THROW((void)create_writer(dir / "e.las", w), InvalidInput);
    w.las_point_format = 6;
    w.las_record_length = 29;
    EXPECT_THROW((void)create_writer(dir / "e.las", w), InvalidInput);
    w.las_record_length = 0;
    w.las_metadata = LasMetadata{};
    w.las_metadata->vlrs.push_back(LasVlr{});
    w.las_metadata->vlrs.back().data.resize(70'000);  // more than a VLR holds
    EXPECT_THROW((void)create_writer(dir / "e.las", w), InvalidInput);
    EXPECT_FALSE(fs::exists(dir / "e.las"));
  }
  {  // a non-finite header offset
    WriterOptions w;
    w.las_offset = std::array<double, 3>{0.0, std::nan(""), 0.0};
    EXPECT_THROW((void)create_writer(dir / "f.las", w), InvalidInput);
    EXPECT_FALSE(fs::exists(dir / "f.las"));
  }
  {  // transcoding from or to a format outside 0-10
    std::vector<std::byte> in(20), out(20);
    LasTranscodeLoss loss;
    const std::array<double, 3> one{1.0, 1.0, 1.0}, zero{};
    EXPECT_THROW(transcode_las_records(in, 1, 0, 20, one, zero, out, 11, 20, one, zero, 0, loss),
                 InvalidInput);
  }
  EXPECT_THROW((void)las_min_record_length(11), InvalidInput);
  EXPECT_EQ(las_min_record_length(10), 67);
}

}  // namespace
}  // namespace simlod::test
