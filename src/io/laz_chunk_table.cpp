// Arithmetic decoding of LAZ chunk tables (see laz_chunk_table.hpp). The coder is Amir Said's
// adaptive arithmetic coder as LASzip uses it: 32-bit interval, renormalised a byte at a time
// when its length drops below 2^24; adaptive bit models (13-bit probabilities) and symbol models
// (15-bit cumulative distributions) whose statistics are refreshed on a growing cycle. Integers
// are coded as a corrector to a prediction: the corrector's bit length k with a 33-symbol model
// per context, then its value (k <= 8: one model of 2^k symbols; larger k: the top 8 bits
// modelled, the rest raw).
#include "io/laz_chunk_table.hpp"

#include <array>

namespace simlod::detail {
namespace {

constexpr std::uint32_t kMinLength = 0x01000000u;
constexpr std::uint32_t kMaxLength = 0xFFFFFFFFu;
constexpr std::uint32_t kBitLengthShift = 13;
constexpr std::uint32_t kBitMaxCount = 1u << kBitLengthShift;
constexpr std::uint32_t kSymbolLengthShift = 15;
constexpr std::uint32_t kSymbolMaxCount = 1u << kSymbolLengthShift;

struct BitModel {
  std::uint32_t bit_0_count = 1, bit_count = 2;
  std::uint32_t bit_0_prob = 1u << (kBitLengthShift - 1);
  std::uint32_t update_cycle = 4, bits_until_update = 4;

  void update() {
    if ((bit_count += update_cycle) > kBitMaxCount) {
      bit_count = (bit_count + 1) >> 1;
      bit_0_count = (bit_0_count + 1) >> 1;
      if (bit_0_count == bit_count) ++bit_count;
    }
    const std::uint32_t scale = 0x80000000u / bit_count;
    bit_0_prob = (bit_0_count * scale) >> (31 - kBitLengthShift);
    update_cycle = (5 * update_cycle) >> 2;
    if (update_cycle > 64) update_cycle = 64;
    bits_until_update = update_cycle;
  }
};

struct SymbolModel {
  explicit SymbolModel(std::uint32_t n) : symbols(n), distribution(n), counts(n, 1) {
    update_cycle = symbols;
    update();
    symbols_until_update = update_cycle = (symbols + 6) >> 1;
  }

  void update() {
    if ((total_count += update_cycle) > kSymbolMaxCount) {
      total_count = 0;
      for (std::uint32_t& c : counts) total_count += (c = (c + 1) >> 1);
    }
    const std::uint32_t scale = 0x80000000u / total_count;
    std::uint32_t sum = 0;
    for (std::uint32_t k = 0; k < symbols; ++k) {
      distribution[k] = (scale * sum) >> (31 - kSymbolLengthShift);
      sum += counts[k];
    }
    update_cycle = (5 * update_cycle) >> 2;
    const std::uint32_t max_cycle = (symbols + 6) << 3;
    if (update_cycle > max_cycle) update_cycle = max_cycle;
    symbols_until_update = update_cycle;
  }

  std::uint32_t symbols;
  std::vector<std::uint32_t> distribution, counts;
  std::uint32_t total_count = 0, update_cycle = 0, symbols_until_update = 0;
};

class Decoder {
 public:
  explicit Decoder(std::span<const std::byte> bytes) : bytes_(bytes) {
    for (int i = 0; i < 4; ++i) value_ = (value_ << 8) | next_byte();
    damaged_ = value_ >= length_;  // only all ones; every step keeps value < length after it
  }

  [[nodiscard]] bool failed() const { return damaged_ || overrun_; }

  std::uint32_t bit(BitModel& m) {
    const std::uint32_t x = m.bit_0_prob * (length_ >> kBitLengthShift);
    const std::uint32_t sym = value_ >= x ? 1 : 0;
    if (sym == 0) {
      length_ = x;
      ++m.bit_0_count;
    } else {
      value_ -= x;
      length_ -= x;
    }
    if (length_ < kMinLength) renormalise();
    if (--m.bits_until_update == 0) m.update();
    return sym;
  }

  std::uint32_t symbol(SymbolModel& m) {
    std::uint32_t x = 0, sym = 0, n = m.symbols, y = length_;
    length_ >>= kSymbolLengthShift;
    std::uint32_t k = n >> 1;
    do {  // the largest symbol whose lower bound is at most value
      const std::uint32_t z = length_ * m.distribution[k];
      if (z > value_) {
        n = k;
        y = z;
      } else {
        sym = k;
        x = z;
      }
    } while ((k = (sym + n) >> 1) != sym);
    value_ -= x;
    length_ = y - x;
    if (length_ < kMinLength) renormalise();
    ++m.counts[sym];
    if (--m.symbols_until_update == 0) m.update();
    return sym;
  }

  std::uint32_t raw_bits(std::uint32_t bits) {
    if (bits > 19) {
      const std::uint32_t low = raw_short();
      return (raw_bits(bits - 16) << 16) | low;
    }
    const std::uint32_t sym = value_ / (length_ >>= bits);
    value_ -= length_ * sym;
    if (length_ < kMinLength) renormalise();
    if (sym >= (1u << bits)) damaged_ = true;  // LASzip throws here
    return sym;
  }

 private:
  std::uint32_t raw_short() { return raw_bits(16); }

  std::uint32_t next_byte() {
    if (at_ >= bytes_.size()) {
      overrun_ = true;
      return 0;
    }
    return static_cast<std::uint32_t>(bytes_[at_++]);
  }

  void renormalise() {
    do {
      value_ = (value_ << 8) | next_byte();
    } while ((length_ <<= 8) < kMinLength);
  }

  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
  std::uint32_t value_ = 0, length_ = kMaxLength;
  bool damaged_ = false, overrun_ = false;
};

/// LASzip's IntegerCompressor for 32-bit values and 2 contexts, decompressing.
class Integers {
 public:
  Integers() {
    for (std::uint32_t i = 1; i <= kCorrBits; ++i) {
      correctors_.emplace_back(i <= kBitsHigh ? 1u << i : 1u << kBitsHigh);
    }
  }

  std::uint32_t decompress(Decoder& d, std::uint32_t prediction, int context) {
    return prediction + static_cast<std::uint32_t>(corrector(d, bits_[context]));
  }

 private:
  static constexpr std::uint32_t kCorrBits = 32, kBitsHigh = 8;

  std::int64_t corrector(Decoder& d, SymbolModel& bits) {
    const std::uint32_t k = d.symbol(bits);
    if (k == 0) return d.bit(zero_);
    if (k >= 32) return INT32_MIN;
    std::int64_t c = d.symbol(correctors_[k - 1]);
    if (k > kBitsHigh) {
      const std::uint32_t low_bits = k - kBitsHigh;
      c = (c << low_bits) | d.raw_bits(low_bits);
    }
    if (c >= (std::int64_t{1} << (k - 1))) return c + 1;
    return c - ((std::int64_t{1} << k) - 1);
  }

  std::array<SymbolModel, 2> bits_{SymbolModel(kCorrBits + 1), SymbolModel(kCorrBits + 1)};
  BitModel zero_;
  std::vector<SymbolModel> correctors_;  // k = 1..32
};

}  // namespace

bool arithmetic_start_is_damaged(std::span<const std::byte, 4> four) {
  for (std::byte b : four) {
    if (b != std::byte{0xFF}) return false;
  }
  return true;
}

std::optional<LazChunkEntries> decode_laz_chunk_table(std::span<const std::byte> coded,
                                                      std::uint32_t chunks, bool variable) {
  LazChunkEntries out;
  if (chunks == 0) return out;
  Decoder d(coded);
  Integers ints;
  out.bytes.reserve(chunks);
  if (variable) out.points.reserve(chunks);
  std::uint32_t points = 0, bytes = 0;
  for (std::uint32_t i = 0; i < chunks && !d.failed(); ++i) {
    if (variable) {
      points = ints.decompress(d, points, 0);
      out.points.push_back(points);
    }
    bytes = ints.decompress(d, bytes, 1);
    out.bytes.push_back(bytes);
  }
  if (d.failed()) return std::nullopt;
  return out;
}

}  // namespace simlod::detail
