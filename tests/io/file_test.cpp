#include "io/file.hpp"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("simlod-file-test-" + name);
}

TEST(InputFile, MissingPathIsIoErrorNamingIt) {
  const auto p = scratch("does-not-exist");
  try {
    InputFile f(p);
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
}

TEST(InputFile, DirectoryIsIoError) {
  EXPECT_THROW(InputFile f(std::filesystem::temp_directory_path()), IoError);
}

TEST(InputFile, ShortReadNamesOffsetAndWhat) {
  const auto p = scratch("short");
  { std::ofstream(p, std::ios::binary) << "0123456789"; }
  InputFile f(p);
  EXPECT_EQ(f.size(), 10u);
  std::array<std::byte, 4> buf{};
  f.read_exact(6, buf, "tail");
  EXPECT_EQ(static_cast<char>(buf[0]), '6');
  try {
    f.read_exact(8, buf, "point record 3");
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("point record 3"), std::string::npos) << m;
    EXPECT_NE(m.find("offset 8"), std::string::npos) << m;
    EXPECT_NE(m.find("truncated"), std::string::npos) << m;
  }
  EXPECT_EQ(f.read_some(8, buf), 2u);
  std::filesystem::remove(p);
}

TEST(OutputFile, PatchesEarlierBytes) {
  const auto p = scratch("patch");
  {
    OutputFile out(p);
    const std::string s = "hello world";
    out.write(std::as_bytes(std::span(s)));
    const std::string w = "W";
    out.write_at(6, std::as_bytes(std::span(w)));
    EXPECT_EQ(out.position(), 11u);
    out.close();
  }
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hello World");
  std::filesystem::remove(p);
}

TEST(OutputFile, UncreatablePathIsIoError) {
  EXPECT_THROW(OutputFile out("/nonexistent-dir/x.sim"), IoError);
}

}  // namespace
}  // namespace simlod::detail
