// Point attributes beside the points (PointReader::read(points, attributes)): every attribute
// of the shared formats/ files against the rule they were written by, LAS and LAZ alike; LAS
// extra bytes through their VLR; PLY scalar properties; and the bad requests and lying VLRs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ply_test_files.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

namespace fs = std::filesystem;

/// Every point and attribute of `path` read in batches of `batch`, as the options ask.
struct ReadBack {
  FileInfo info;
  std::vector<Point> points;
  PointAttributes attributes;
};

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from, std::size_t n) {
  to.insert(to.end(), from.begin(), from.begin() + static_cast<std::ptrdiff_t>(n));
}

ReadBack read_all(const fs::path& path, ReaderOptions options, std::size_t batch = 7'777) {
  options.threads = 3;
  auto reader = open_reader(path, options);
  ReadBack r{reader->info(), {}, {}};
  std::vector<Point> points(batch);
  PointAttributes a;
  for (std::size_t n; (n = reader->read(points, a)) > 0;) {
    append(r.points, points, n);
    PointAttributes& all = r.attributes;
    append(all.intensity, a.intensity, a.intensity.empty() ? 0 : n);
    append(all.return_number, a.return_number, a.return_number.empty() ? 0 : n);
    append(all.number_of_returns, a.number_of_returns, a.number_of_returns.empty() ? 0 : n);
    append(all.classification, a.classification, a.classification.empty() ? 0 : n);
    append(all.scan_angle, a.scan_angle, a.scan_angle.empty() ? 0 : n);
    append(all.point_source_id, a.point_source_id, a.point_source_id.empty() ? 0 : n);
    append(all.gps_time, a.gps_time, a.gps_time.empty() ? 0 : n);
    append(all.nir, a.nir, a.nir.empty() ? 0 : n);
    all.extra.resize(a.extra.size());
    for (std::size_t e = 0; e < a.extra.size(); ++e) {
      EXPECT_EQ(a.extra[e].values.size(), n);
      all.extra[e].name = a.extra[e].name;
      append(all.extra[e].values, a.extra[e].values, n);
    }
  }
  return r;
}

ReaderOptions asking(AttributeMask mask) {
  ReaderOptions o;
  o.attributes = mask;
  return o;
}

TEST(PointAttributes, NamesRoundTrip) {
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    const auto a = static_cast<Attribute>(i);
    EXPECT_EQ(attribute_from_string(to_string(a)), a);
  }
  EXPECT_EQ(attribute_from_string("GPS_Time"), Attribute::GpsTime);
  EXPECT_THROW((void)attribute_from_string("colour"), InvalidInput);
  EXPECT_EQ(attribute_names(attribute_bit(Attribute::Intensity) |
                            attribute_bit(Attribute::Classification)),
            "intensity, classification");
}

TEST(PointAttributes, CopyFromGathersReadsIntoOneBatch) {
  PointAttributes part;
  part.intensity = {10, 11, 12};
  part.classification = {2, 5, 6};
  part.gps_time = {1.5, 2.5, 3.5};
  part.extra = {{"height", {0.25, 0.5, 0.75}}};
  PointAttributes all;
  const AttributeMask mask = attribute_bit(Attribute::Intensity) |
                             attribute_bit(Attribute::Classification) |
                             attribute_bit(Attribute::ReturnNumber);
  all.copy_from(part, 2, 0, mask);  // the first two values of the first read
  part.intensity = {20, 21, 22};
  part.classification = {9, 8, 7};
  part.extra[0].values = {4.0, 5.0, 6.0};
  all.copy_from(part, 3, 2, mask);
  EXPECT_EQ(all.intensity, (std::vector<std::uint16_t>{10, 11, 20, 21, 22}));
  EXPECT_EQ(all.classification, (std::vector<std::uint8_t>{2, 5, 9, 8, 7}));
  EXPECT_TRUE(all.gps_time.empty());       // not in the mask
  EXPECT_TRUE(all.return_number.empty());  // in the mask, but the source has none
  ASSERT_EQ(all.extra.size(), 1u);
  EXPECT_EQ(all.extra[0].name, "height");
  EXPECT_EQ(all.extra[0].values, (std::vector<double>{0.25, 0.5, 4.0, 5.0, 6.0}));
  // Overwriting in place keeps the length; a gap before `at` fills with zeros.
  all.copy_from(part, 1, 0, mask);
  EXPECT_EQ(all.intensity, (std::vector<std::uint16_t>{20, 11, 20, 21, 22}));
  all.copy_from(part, 1, 6, mask);
  EXPECT_EQ(all.classification, (std::vector<std::uint8_t>{9, 5, 9, 8, 7, 0, 9}));
}

TEST(PointAttributes, CopyFromRefusesShortSources) {
  PointAttributes part;
  part.intensity = {1, 2};
  part.classification = {1, 2, 3};
  PointAttributes all;
  all.intensity = {7};
  const AttributeMask mask =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification);
  try {
    all.copy_from(part, 3, 1, mask);
    FAIL() << "a source of 2 intensities copied 3";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("intensity"), std::string::npos) << e.what();
  }
  EXPECT_EQ(all.intensity, (std::vector<std::uint16_t>{7}));  // nothing copied
  EXPECT_TRUE(all.classification.empty());
  part.intensity = {1, 2, 3};
  part.extra = {{"amplitude", {1.0}}};
  EXPECT_THROW(all.copy_from(part, 3, 1, mask), InvalidInput);
  EXPECT_EQ(all.intensity, (std::vector<std::uint16_t>{7}));
}

TEST(PointAttributes, FormatsFilesFollowTheirRule) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  for (int f = 0; f <= 10; ++f) {
    for (const char* ext : {".las", ".laz"}) {
      const fs::path path = data / "formats" / ("f" + std::to_string(f) + ext);
      if (!fs::exists(path) || (std::string(ext) == ".laz" && !laz_supported())) continue;
      SCOPED_TRACE(path.string());
      const FileInfo info = open_reader(path)->info();
      const bool time = f != 0 && f != 2;
      const bool nir = f == 8 || f == 10;
      EXPECT_EQ(has_attribute(info.attributes, Attribute::GpsTime), time);
      EXPECT_EQ(has_attribute(info.attributes, Attribute::Nir), nir);
      EXPECT_EQ(has_attribute(info.attributes, Attribute::ScannerChannel), f > 5);
      const ReadBack r = read_all(path, asking(info.attributes));
      const PointAttributes& a = r.attributes;
      ASSERT_EQ(r.points.size(), 100'000u);
      ASSERT_EQ(a.intensity.size(), 100'000u);
      ASSERT_EQ(a.gps_time.size(), time ? 100'000u : 0u);
      ASSERT_EQ(a.nir.size(), nir ? 100'000u : 0u);
      for (std::size_t i = 0; i < 100'000; ++i) {
        ASSERT_EQ(a.intensity[i], i & 0xFFFF) << i;
        ASSERT_EQ(a.return_number[i], 1) << i;
        ASSERT_EQ(a.number_of_returns[i], 1) << i;
        if (f > 5) {
          ASSERT_EQ(a.classification[i], i % 20) << i;
        }
        if (time) {
          ASSERT_NEAR(a.gps_time[i], static_cast<double>(i) * 0.001, 1e-9) << i;
        }
        if (nir) {
          ASSERT_EQ(a.nir[i], 7) << i;
        }
      }
    }
  }
}

TEST(PointAttributes, LazGivesTheLasFileAttributes) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "built without LASzip";
  for (int f : {1, 3, 6, 7, 8, 9}) {
    SCOPED_TRACE(f);
    const fs::path las = data / "formats" / ("f" + std::to_string(f) + ".las");
    const AttributeMask all = open_reader(las)->info().attributes;
    const ReadBack a = read_all(las, asking(all), 4'096);
    const ReadBack b =
        read_all(data / "formats" / ("f" + std::to_string(f) + ".laz"), asking(all), 10'000);
    EXPECT_EQ(a.points, b.points);
    EXPECT_EQ(a.attributes.intensity, b.attributes.intensity);
    EXPECT_EQ(a.attributes.classification, b.attributes.classification);
    EXPECT_EQ(a.attributes.scan_angle, b.attributes.scan_angle);
    EXPECT_EQ(a.attributes.point_source_id, b.attributes.point_source_id);
    EXPECT_EQ(a.attributes.gps_time, b.attributes.gps_time);
    EXPECT_EQ(a.attributes.nir, b.attributes.nir);
  }
}

TEST(PointAttributes, OnlyWhatIsAskedIsFilled) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const fs::path path = data / "formats" / "f6.las";
  auto reader = open_reader(path, asking(attribute_bit(Attribute::Classification)));
  std::vector<Point> points(1000);
  PointAttributes a;
  a.intensity.assign(5, 1);  // left over from elsewhere: emptied
  ASSERT_EQ(reader->read(points, a), 1000u);
  EXPECT_EQ(a.present(), attribute_bit(Attribute::Classification));
  EXPECT_EQ(a.classification[999], 999 % 20);
  // The plain read() goes on from there and returns the same points.
  ASSERT_EQ(reader->read(points), 1000u);
  const ReadBack all = read_all(path, {});
  EXPECT_EQ(points[0], all.points[1000]);
}

/// Writes format-6 records with `extra` bytes a point (filled by fill(i, bytes)) and `vlr` as
/// the extra-bytes VLR.
void write_extra_file(const fs::path& path, std::size_t extra, const std::vector<std::byte>& vlr,
                      std::size_t count, const std::function<void(std::size_t, std::byte*)>& fill) {
  const std::size_t length = 30 + extra;
  std::vector<std::byte> records(count * length);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* r = records.data() + i * length;
    const std::int32_t x = static_cast<std::int32_t>(i);
    std::memcpy(r, &x, 4);
    r[14] = std::byte{0x11};
    fill(i, r + 30);
  }
  LasMetadata m;
  m.version_minor = 4;
  LasVlr v;
  std::strncpy(v.user_id.data(), "LASF_Spec", v.user_id.size());
  v.record_id = 4;
  v.data = vlr;
  m.vlrs.push_back(v);
  WriterOptions w;
  w.scale = {0.01, 0.01, 0.01};
  w.las_offset = std::array<double, 3>{0.0, 0.0, 0.0};
  w.las_point_format = 6;
  w.las_record_length = static_cast<std::uint16_t>(length);
  w.las_metadata = m;
  auto writer = create_writer(path, w);
  writer->write_records(records);
  writer->close();
}

/// One 192-byte extra-bytes descriptor.
std::vector<std::byte> descriptor(unsigned type, unsigned options, const char* name,
                                  double scale = 1.0, double offset = 0.0) {
  std::vector<std::byte> d(192);
  d[2] = std::byte{static_cast<unsigned char>(type)};
  d[3] = std::byte{static_cast<unsigned char>(options)};
  std::strncpy(reinterpret_cast<char*>(d.data()) + 4, name, 32);
  for (std::size_t e = 0; e < 3; ++e) {
    std::memcpy(d.data() + 112 + 8 * e, &scale, 8);
    std::memcpy(d.data() + 136 + 8 * e, &offset, 8);
  }
  return d;
}

std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(PointAttributes, LasExtraBytesThroughTheirVlr) {
  TempDir dir;
  // height: uint16 x 0.01 + 100; conf: float; pad: 1 undocumented byte; pair: 2 x int16
  // (deprecated array type 14 = 2 x type 4). 2 + 4 + 1 + 4 = 11 bytes.
  const auto vlr =
      concat({descriptor(3, (1u << 3) | (1u << 4), "height", 0.01, 100.0), descriptor(9, 0, "conf"),
              descriptor(0, 1, "pad"), descriptor(14, 0, "pair")});
  auto fill = [](std::size_t i, std::byte* e) {
    const auto h = static_cast<std::uint16_t>(i * 3);
    const float c = 0.25f * static_cast<float>(i);
    const std::int16_t p[2] = {static_cast<std::int16_t>(-static_cast<int>(i)), 7};
    std::memcpy(e, &h, 2);
    std::memcpy(e + 2, &c, 4);
    e[6] = std::byte{0xAB};
    std::memcpy(e + 7, p, 4);
  };
  for (const char* name : {"x.las", "x.laz"}) {
    if (std::string(name) == "x.laz" && !laz_supported()) continue;
    SCOPED_TRACE(name);
    write_extra_file(dir / name, 11, vlr, 500, fill);
    ReaderOptions o;
    o.all_extra_attributes = true;
    const ReadBack r = read_all(dir / name, o, 77);
    EXPECT_EQ(r.info.extra_attributes,
              (std::vector<std::string>{"height", "conf", "pair[0]", "pair[1]"}));
    ASSERT_EQ(r.attributes.extra.size(), 4u);
    for (std::size_t i = 0; i < 500; ++i) {
      ASSERT_DOUBLE_EQ(r.attributes.extra[0].values[i], static_cast<double>(i * 3) * 0.01 + 100);
      ASSERT_EQ(r.attributes.extra[1].values[i], 0.25 * static_cast<double>(i));
      ASSERT_EQ(r.attributes.extra[2].values[i], -static_cast<double>(i));
      ASSERT_EQ(r.attributes.extra[3].values[i], 7.0);
    }
    // By name, in the order asked.
    ReaderOptions named;
    named.extra_attributes = {"pair[1]", "height"};
    const ReadBack n = read_all(dir / name, named, 100);
    ASSERT_EQ(n.attributes.extra.size(), 2u);
    EXPECT_EQ(n.attributes.extra[0].name, "pair[1]");
    EXPECT_EQ(n.attributes.extra[1].values[10], 100.3);
    named.extra_attributes = {"width"};
    try {
      (void)open_reader(dir / name, named);
      ADD_FAILURE() << "an unknown extra attribute was accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("'width'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'height'"), std::string::npos) << e.what();
    }
  }
}

TEST(PointAttributes, LyingExtraBytesVlrsNameTheVlr) {
  TempDir dir;
  auto zeros = [](std::size_t, std::byte*) {};
  struct Case {
    const char* what;
    std::vector<std::byte> vlr;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"wider than the records", descriptor(7, 0, "big"), "needs bytes 0 to 7"},
      {"two fields past the end", concat({descriptor(5, 0, "a"), descriptor(3, 0, "b")}),
       "descriptor 1 ('b')"},
      {"not whole descriptors", std::vector<std::byte>(100), "not whole 192-byte descriptors"},
      {"unknown type", descriptor(31, 0, "odd"), "data type 31"},
      {"repeated name", concat({descriptor(1, 0, "a"), descriptor(1, 0, "a")}), "repeated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const fs::path path = dir / "lying.las";
    write_extra_file(path, 4, c.vlr, 10, zeros);
    // Not asked for extra attributes: the points and attributes read as ever.
    const ReadBack plain = read_all(path, asking(attribute_bit(Attribute::Intensity)));
    EXPECT_EQ(plain.points.size(), 10u);
    EXPECT_TRUE(plain.info.extra_attributes.empty());
    ReaderOptions o;
    o.all_extra_attributes = true;
    try {
      (void)open_reader(path, o);
      ADD_FAILURE() << "the lying VLR was accepted";
    } catch (const InvalidInput& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("LASF_Spec, record 4"), std::string::npos) << m;
      EXPECT_NE(m.find(c.says), std::string::npos) << m;
      EXPECT_NE(m.find("lying.las"), std::string::npos) << m;
    }
  }
}

TEST(PointAttributes, AbsentAttributesAreClearErrors) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  auto expect_refused = [](const fs::path& path, Attribute a, const char* says) {
    SCOPED_TRACE(path.string());
    try {
      (void)open_reader(path, asking(attribute_bit(a) | attribute_bit(Attribute::Intensity)));
      ADD_FAILURE() << "asked for an absent attribute and got none";
    } catch (const InvalidInput& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(to_string(a)), std::string::npos) << m;
      EXPECT_NE(m.find(path.filename().string()), std::string::npos) << m;
      EXPECT_NE(m.find(says), std::string::npos) << m;
    }
  };
  expect_refused(data / "formats" / "f6.las", Attribute::Nir, "point format 6");
  expect_refused(data / "haystack_rock.las", Attribute::GpsTime, "point format 0");
  expect_refused(data / "bun_zipper.ply", Attribute::Classification, "PLY");
  TempDir dir;
  {
    auto w = create_writer(dir / "p.sim");
    const Point p{1, 2, 3, 0};
    w->write(std::span(&p, 1));
    w->close();
  }
  expect_refused(dir / "p.sim", Attribute::Classification, "none");
  ReaderOptions bits;
  bits.attributes = AttributeMask{1} << 20;
  EXPECT_THROW((void)open_reader(data / "formats" / "f6.las", bits), InvalidInput);
}

TEST(PointAttributes, PlyScalarProperties) {
  TempDir dir;
  const std::vector<PlyColumn> columns = {
      {"float", "x"},
      {"float", "y"},
      {"float", "z"},
      {"uint16", "intensity"},
      {"float", "scalar_Classification"},
      {"float", "nx"},
      {"double", "scalar_gps_time"},
      {"int32", "Intensity"}};  // a second intensity: an extra attribute
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < 50; ++i) {
    rows.push_back({double(i), 0.0, 1.0, double(i * 1000),
                    i == 7   ? 300.0
                    : i == 8 ? -2.0
                             : i % 5,
                    0.5 * i, 1e9 + i, double(-i)});
  }
  for (bool binary : {false, true}) {
    SCOPED_TRACE(binary ? "binary" : "ascii");
    const fs::path path = dir / (binary ? "b.ply" : "a.ply");
    std::ofstream(path, std::ios::binary) << ply_file(binary, columns, rows);
    const FileInfo info = open_reader(path)->info();
    EXPECT_EQ(info.attributes, attribute_bit(Attribute::Intensity) |
                                   attribute_bit(Attribute::Classification) |
                                   attribute_bit(Attribute::GpsTime));
    EXPECT_EQ(info.extra_attributes, (std::vector<std::string>{"nx", "Intensity"}));
    ReaderOptions o = asking(info.attributes);
    o.all_extra_attributes = true;
    const ReadBack r = read_all(path, o, 16);
    ASSERT_EQ(r.points.size(), 50u);
    for (std::size_t i = 0; i < 50; ++i) {
      const double d = static_cast<double>(i);
      EXPECT_EQ(r.attributes.intensity[i], i * 1000);
      // Rounded and clamped to 0..255: 300 -> 255, -2 -> 0.
      EXPECT_EQ(r.attributes.classification[i], i == 7 ? 255 : i == 8 ? 0 : i % 5) << i;
      EXPECT_EQ(r.attributes.gps_time[i], 1e9 + d);
      EXPECT_EQ(r.attributes.extra[0].values[i], 0.5 * d);
      EXPECT_EQ(r.attributes.extra[1].values[i], -d);
    }
  }
}

TEST(PointAttributes, PlyFloatIntensityInUnitRangeIsScaled) {
  TempDir dir;
  const std::vector<PlyColumn> columns = {
      {"float", "x"}, {"float", "y"}, {"float", "z"}, {"float", "intensity"}};
  for (double top : {1.0, 40.0}) {
    SCOPED_TRACE(top);
    const fs::path path = dir / "i.ply";
    std::ofstream(path, std::ios::binary)
        << ply_file(true, columns, {{0, 0, 0, 0.5}, {1, 1, 1, top}, {2, 2, 2, 0.0}});
    const ReadBack r = read_all(path, asking(attribute_bit(Attribute::Intensity)));
    // All within [0, 1]: scaled to 0..65535 (0.5 -> 32767.5 -> 32768); otherwise rounded as
    // they are (0.5 -> 1).
    const std::vector<std::uint16_t> expected = top == 1.0
                                                    ? std::vector<std::uint16_t>{32768, 65535, 0}
                                                    : std::vector<std::uint16_t>{1, 40, 0};
    EXPECT_EQ(r.attributes.intensity, expected);
  }
}

TEST(PointAttributes, BunnyIntensityAndConfidence) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const fs::path path = data / "bun_zipper.ply";
  ReaderOptions o = asking(attribute_bit(Attribute::Intensity));
  o.extra_attributes = {"confidence"};
  const ReadBack r = read_all(path, o);
  ASSERT_EQ(r.points.size(), 35'947u);
  // The first vertex: confidence 0.850855, intensity 0.5 (of 0..1).
  EXPECT_NEAR(r.attributes.extra[0].values[0], 0.850855, 1e-6);
  EXPECT_EQ(r.attributes.intensity[0], 32768);
  std::size_t half = 0;
  for (std::uint16_t v : r.attributes.intensity) half += v == 32768 ? 1 : 0;
  EXPECT_EQ(half, 28'228u);  // vertices whose intensity is 0.5 in the file
}

TEST(PointAttributes, WritersTakeThemBack) {
  TempDir dir;
  constexpr std::size_t kN = 3'000;
  std::vector<Point> points(kN);
  PointAttributes a;
  a.resize(kAllAttributes, kN);
  a.extra = {{"height", std::vector<double>(kN)}, {"conf", std::vector<double>(kN)}};
  for (std::size_t i = 0; i < kN; ++i) {
    points[i] = Point{static_cast<float>(i % 100), static_cast<float>(i / 100), 1.5f,
                      pack_rgba(i & 255, 7, 9)};
    a.intensity[i] = static_cast<std::uint16_t>(i * 21);
    a.return_number[i] = static_cast<std::uint8_t>(i % 5 + 1);
    a.number_of_returns[i] = 5;
    a.classification[i] = static_cast<std::uint8_t>(i % 200);
    a.classification_flags[i] = static_cast<std::uint8_t>(i % 16);
    a.scanner_channel[i] = static_cast<std::uint8_t>(i % 4);
    a.scan_flags[i] = static_cast<std::uint8_t>(i % 4);
    a.scan_angle[i] = static_cast<float>(static_cast<int>(i % 60) - 30) * 0.006f * 100;
    a.user_data[i] = static_cast<std::uint8_t>(i);
    a.point_source_id[i] = static_cast<std::uint16_t>(i / 10);
    a.gps_time[i] = 1e8 + static_cast<double>(i) * 1e-3;
    a.nir[i] = static_cast<std::uint16_t>(65535 - i);
    a.extra[0].values[i] = 100.0 + static_cast<double>(i) * 0.01;
    a.extra[1].values[i] = 0.5 * static_cast<double>(i);
  }
  LasMetadata m;
  m.version_minor = 4;
  LasVlr v;
  std::strncpy(v.user_id.data(), "LASF_Spec", v.user_id.size());
  v.record_id = 4;
  v.data = concat(
      {descriptor(3, (1u << 3) | (1u << 4), "height", 0.01, 100.0), descriptor(10, 0, "conf")});
  m.vlrs.push_back(v);
  for (const char* name : {"w.las", "w.laz"}) {
    if (std::string(name) == "w.laz" && !laz_supported()) continue;
    SCOPED_TRACE(name);
    WriterOptions w;
    w.scale = {0.001, 0.001, 0.001};
    w.las_point_format = 8;
    w.las_record_length = 38 + 10;
    w.las_metadata = m;
    auto writer = create_writer(dir / name, w);
    // Two calls, the second continuing the arrays' points.
    writer->write_with_attributes(std::span(points).first(1000), a);
    PointAttributes rest = a;
    rest.resize(kAllAttributes, kN);
    for (auto* v8 :
         {&rest.return_number, &rest.number_of_returns, &rest.classification,
          &rest.classification_flags, &rest.scanner_channel, &rest.scan_flags, &rest.user_data}) {
      v8->erase(v8->begin(), v8->begin() + 1000);
    }
    for (auto* v16 : {&rest.intensity, &rest.point_source_id, &rest.nir}) {
      v16->erase(v16->begin(), v16->begin() + 1000);
    }
    rest.scan_angle.erase(rest.scan_angle.begin(), rest.scan_angle.begin() + 1000);
    rest.gps_time.erase(rest.gps_time.begin(), rest.gps_time.begin() + 1000);
    for (auto& e : rest.extra) e.values.erase(e.values.begin(), e.values.begin() + 1000);
    writer->write_with_attributes(std::span(points).subspan(1000), rest);
    writer->close();

    ReaderOptions o = asking(kAllAttributes);
    o.all_extra_attributes = true;
    const ReadBack r = read_all(dir / name, o, 700);
    ASSERT_EQ(r.points.size(), kN);
    EXPECT_EQ(r.attributes.intensity, a.intensity);
    EXPECT_EQ(r.attributes.return_number, a.return_number);
    EXPECT_EQ(r.attributes.number_of_returns, a.number_of_returns);
    EXPECT_EQ(r.attributes.classification, a.classification);
    EXPECT_EQ(r.attributes.point_source_id, a.point_source_id);
    EXPECT_EQ(r.attributes.gps_time, a.gps_time);
    EXPECT_EQ(r.attributes.nir, a.nir);
    for (std::size_t i = 0; i < kN; ++i) {
      ASSERT_NEAR(r.attributes.scan_angle[i], a.scan_angle[i], 0.0031) << i;
      ASSERT_NEAR(r.attributes.extra[0].values[i], a.extra[0].values[i], 1e-9) << i;
      ASSERT_EQ(r.attributes.extra[1].values[i], a.extra[1].values[i]) << i;
      ASSERT_EQ(r.points[i].rgba, points[i].rgba) << i;
    }
  }
}

TEST(PointAttributes, WritersRefuseWhatDoesNotFit) {
  TempDir dir;
  std::vector<Point> points(10);
  auto expect_refused = [&](int format, const PointAttributes& a, const char* says) {
    SCOPED_TRACE(says);
    WriterOptions w;
    w.las_point_format = format;
    auto writer = create_writer(dir / "r.las", w);
    writer->write(std::span(points).first(2));
    try {
      writer->write_with_attributes(points, a);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    writer->close();
    EXPECT_EQ(read_info(dir / "r.las").point_count, 2u);  // nothing of the refused call
  };
  PointAttributes time;
  time.gps_time.assign(10, 1.0);
  expect_refused(2, time, "no field for gps_time");
  PointAttributes classes;
  classes.classification.assign(10, 3);
  classes.classification[9] = 40;
  expect_refused(0, classes, "point 11: class 40");
  PointAttributes shorter;
  shorter.intensity.assign(9, 1);
  expect_refused(6, shorter, "9 values of intensity");
  PointAttributes extra;
  extra.extra = {{"height", std::vector<double>(10)}};
  expect_refused(6, extra, "'height' has no field");
  PointAttributes returns;
  returns.return_number.assign(10, 1);
  returns.return_number[4] = 8;  // formats 0-5 hold 3 bits
  expect_refused(0, returns, "point 6: return number 8");
  PointAttributes angles;
  angles.scan_angle.assign(10, 0.0f);
  angles.scan_angle[2] = 200.0f;  // beyond 127 whole degrees
  expect_refused(2, angles, "point 4: scan angle 200");
  PointAttributes channel;
  channel.scanner_channel.assign(10, 0);
  channel.scanner_channel[0] = 4;
  expect_refused(6, channel, "point 2: scanner channel 4");
  // SIM keeps no attributes.
  auto sim = create_writer(dir / "p.sim");
  EXPECT_THROW(sim->write_with_attributes(points, time), InvalidInput);
  sim->write_with_attributes(points, PointAttributes{});
  sim->close();
}

}  // namespace
}  // namespace simlod::test
