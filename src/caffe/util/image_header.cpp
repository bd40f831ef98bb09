#include "caffe/util/image_header.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>

#include "caffe/common.hpp"
#include "caffe/util/host_memory_room.hpp"

namespace caffe {

namespace {

uint32_t BigEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

int32_t LittleEndian32(const unsigned char* p) {
  return static_cast<int32_t>(p[0] | (p[1] << 8) | (p[2] << 16) |
                              (static_cast<uint32_t>(p[3]) << 24));
}

bool Positive(int64_t w, int64_t h, int* width, int* height) {
  if (w <= 0 || h <= 0 || w > INT32_MAX || h > INT32_MAX) return false;
  *width = static_cast<int>(w);
  *height = static_cast<int>(h);
  return true;
}

bool PeekJpeg(const unsigned char* p, size_t n, int* width, int* height) {
  size_t at = 2;  // after FF D8
  while (at + 4 <= n) {
    if (p[at] != 0xFF) {
      // libjpeg skips bytes that are not a marker ("extraneous bytes
      // before marker"); so must the size it will decode.
      ++at;
      continue;
    }
    const unsigned char marker = p[at + 1];
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    if (marker == 0x00) {  // FF 00, a stuffed zero: libjpeg skips it too
      at += 2;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
      at += 2;  // no length
      continue;
    }
    const size_t length = BigEndian(p + at + 2, 2);
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 &&
                     marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (at + 9 > n) return false;
      return Positive(BigEndian(p + at + 7, 2), BigEndian(p + at + 5, 2),
                      width, height);
    }
    // libjpeg skips length - 2 bytes after the length field, and nothing
    // when a damaged length is below 2: it then reads on from there.
    at += 2 + std::max<size_t>(length, 2);
  }
  return false;
}

// The next unsigned decimal of a PNM header (skipping blanks and comments).
bool PnmNumber(const unsigned char* p, size_t n, size_t* at, int64_t* out) {
  while (*at < n) {
    if (p[*at] == '#') {
      while (*at < n && p[*at] != '\n') ++*at;
    } else if (std::isspace(p[*at])) {
      ++*at;
    } else {
      break;
    }
  }
  if (*at >= n || !std::isdigit(p[*at])) return false;
  int64_t v = 0;
  while (*at < n && std::isdigit(p[*at]) && v < (int64_t(1) << 40))
    v = v * 10 + (p[(*at)++] - '0');
  *out = v;
  return true;
}

}  // namespace

bool PeekImageSize(const unsigned char* p, size_t n, int* width,
                   int* height) {
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G',
                                        0x0D, 0x0A, 0x1A, 0x0A};
  if (n >= 24 && std::memcmp(p, kPng, 8) == 0 &&
      std::memcmp(p + 12, "IHDR", 4) == 0)
    return Positive(BigEndian(p + 16, 4), BigEndian(p + 20, 4), width,
                    height);
  if (n >= 4 && p[0] == 0xFF && p[1] == 0xD8) return PeekJpeg(p, n, width,
                                                               height);
  if (n >= 26 && p[0] == 'B' && p[1] == 'M') {
    const int64_t h = LittleEndian32(p + 22);
    return Positive(LittleEndian32(p + 18), h < 0 ? -h : h, width, height);
  }
  if (n >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '6') {
    size_t at = 2;
    int64_t w = 0, h = 0;
    return PnmNumber(p, n, &at, &w) && PnmNumber(p, n, &at, &h) &&
           Positive(w, h, width, height);
  }
  return false;
}

void CheckDecodedImageFits(const unsigned char* data, size_t size) {
  int width = 0, height = 0;
  if (!PeekImageSize(data, size, &width, &height)) return;
  const size_t bytes = static_cast<size_t>(width) * height * 4;
  try {
    CheckHostAllocation(bytes);
  } catch (const Error& e) {
    throw Error("the encoded image's header says " + std::to_string(width) +
                " x " + std::to_string(height) + " pixels, which need " +
                FormatBytes(bytes) + " when decoded: " + e.what());
  }
}

}  // namespace caffe
