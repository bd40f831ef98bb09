// mapped_read_guard.hpp: reads of a memory-mapped file that a corrupted or
// truncated file cannot turn into a crash.
//
// LMDB reads its data.mdb through a memory map and trusts the offsets and
// page numbers it finds there: a flipped bit can send it outside the map
// (SIGSEGV), past the end of a truncated file (SIGBUS), or into one of its
// internal assertions (abort).  None of that may end a training job or a
// Python session without a word.
//
// Contract:
//  * GuardMappedRead(what, body) runs body on the calling thread.  If body
//    faults (SIGSEGV or SIGBUS) or calls MappedReadFailed (LMDB's assertion
//    hook, mdb_env_set_assert), body is abandoned and caffe::Error is thrown:
//    `what` followed by the cause.
//  * body is left by siglongjmp: it must not own objects with destructors
//    where it may fault.  Call C functions; copy into storage owned outside.
//  * The signal handlers are installed once and chained: a fault outside
//    any guarded read goes to the handler that was there before (so a
//    real crash still crashes, and sanitizers still report).
//  * Guards are per thread and may nest.
#ifndef CAFFE_UTIL_MAPPED_READ_GUARD_HPP_
#define CAFFE_UTIL_MAPPED_READ_GUARD_HPP_

#include <functional>
#include <string>

namespace caffe {

void GuardMappedRead(const std::string& what,
                     const std::function<void()>& body);

// Abandons the innermost guarded read on this thread with `cause`; does
// nothing outside one (the caller then goes on as it would have).
void MappedReadFailed(const char* cause);

}  // namespace caffe

#endif  // CAFFE_UTIL_MAPPED_READ_GUARD_HPP_
