// int_pieces.hpp: runs a 32-bit routine over a range that may pass INT_MAX.
//
// Contract: ForIntPieces(count, f) calls f(start, n) for consecutive pieces
// [start, start + n) covering [0, count), each n at most INT_MAX and every
// piece but the last exactly INT_MAX long.  A count that fits in an int is a
// single call f(0, count), so a path that goes through it gives the bits of
// the plain call it replaced; only blobs over 2^31 elements take more than
// one piece.  Used where BLAS-style routines (caffe_copy, caffe_set, ...)
// take `const int N` and a blob may be larger (issue 13, item 5).
// ShapeHolding(n) is a blob shape with at least n elements, every axis an
// int: {n} when n fits, else {rows, kShapeRow}; for flat scratch blobs
// (masks, workspaces) whose size is a count, not a layout.
#ifndef CAFFE_UTIL_INT_PIECES_HPP_
#define CAFFE_UTIL_INT_PIECES_HPP_

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

namespace caffe {

template <typename F>
void ForIntPieces(int64_t count, F f) {
  for (int64_t start = 0; start < count; start += INT_MAX)
    f(start, static_cast<int>(std::min<int64_t>(INT_MAX, count - start)));
}

const int kShapeRow = 1 << 20;

inline std::vector<int> ShapeHolding(int64_t n) {
  if (n <= INT_MAX) return {static_cast<int>(n)};
  return {static_cast<int>((n + kShapeRow - 1) / kShapeRow), kShapeRow};
}

}  // namespace caffe

#endif  // CAFFE_UTIL_INT_PIECES_HPP_
