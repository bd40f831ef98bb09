// image_header.hpp: an encoded image's size from its header alone, so
// that an image whose decoded pixels cannot fit in memory is refused
// before OpenCV allocates them (a damaged or hostile header can claim
// tens of thousands of pixels per side in a few hundred bytes).
//
// Contract: PeekImageSize reads PNG (IHDR), JPEG (the first SOF marker),
// BMP and PNM (P1-P6) headers; it returns false for other formats or a
// header it cannot read (OpenCV then decides), true with *width and
// *height (both > 0) otherwise.  It never reads past `size` bytes.
// CheckDecodedImageFits throws caffe::Error, naming the size, when
// width x height x 4 bytes (the most any decode mode keeps per pixel)
// does not fit in host memory (util/host_memory_room.hpp).
#ifndef CAFFE_UTIL_IMAGE_HEADER_HPP_
#define CAFFE_UTIL_IMAGE_HEADER_HPP_

#include <cstddef>

namespace caffe {

bool PeekImageSize(const unsigned char* data, size_t size, int* width,
                   int* height);
void CheckDecodedImageFits(const unsigned char* data, size_t size);

}  // namespace caffe

#endif  // CAFFE_UTIL_IMAGE_HEADER_HPP_
