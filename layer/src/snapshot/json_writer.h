// A small streaming JSON writer: appends to a buffer and flushes it to a file descriptor in large
// blocks. No DOM: a snapshot of a million objects must stay fast and small.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "shared/utf8.h"  // one definition with the CLI's reader

namespace vkleak {

class JsonWriter {
 public:
  explicit JsonWriter(int fd) : fd_(fd) { buf_.reserve(kFlushAt + 4096); }

  bool ok() const { return ok_; }
  int error() const { return errno_; }

  void raw(const char* s, size_t n) {
    buf_.append(s, n);
    if (buf_.size() >= kFlushAt) flush();
  }
  void raw(const char* s) { raw(s, std::strlen(s)); }
  void raw(const std::string& s) { raw(s.data(), s.size()); }

  void u64(uint64_t v) {
    char tmp[24];
    char* p = tmp + sizeof(tmp);
    do {
      *--p = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    raw(p, static_cast<size_t>(tmp + sizeof(tmp) - p));
  }
  void i64(int64_t v) {
    if (v < 0) {
      raw("-", 1);
      u64(static_cast<uint64_t>(-(v + 1)) + 1);
    } else {
      u64(static_cast<uint64_t>(v));
    }
  }
  void hex(uint64_t v) {  // "0x..." with quotes
    static const char* digits = "0123456789abcdef";
    char tmp[20];
    char* p = tmp + sizeof(tmp);
    *--p = '"';
    do {
      *--p = digits[v & 15];
      v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    *--p = '"';
    raw(p, static_cast<size_t>(tmp + sizeof(tmp) - p));
  }
  void str(const std::string& s) { str(s.data(), s.size()); }
  // Any bytes in, valid JSON out: strict UTF-8 (no overlongs, surrogates, code points past
  // U+10FFFF or truncated sequences); each maximal invalid subpart becomes one U+FFFD (the
  // Unicode practice, as Python's errors="replace"); control characters are escaped. Every
  // string the layer writes comes from the app or the system (names, labels, paths): this is the
  // one place that makes them valid.
  void str(const char* s, size_t n) {
    raw("\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < n;) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {  // plain ASCII: copied in runs
        ++i;
        continue;
      }
      raw(s + start, i - start);
      if (c >= 0x80) {
        bool valid = false;
        const size_t len =
            utf8_sequence(reinterpret_cast<const unsigned char*>(s) + i, n - i, &valid);
        if (valid)
          raw(s + i, len);
        else
          raw("\xef\xbf\xbd", 3);  // U+FFFD
        i += len;
        start = i;
        continue;
      }
      if (c == '"') {
        raw("\\\"", 2);
      } else if (c == '\\') {
        raw("\\\\", 2);
      } else if (c == '\n') {
        raw("\\n", 2);
      } else if (c == '\t') {
        raw("\\t", 2);
      } else if (c == '\r') {
        raw("\\r", 2);
      } else {
        static const char* digits = "0123456789abcdef";
        const char esc[6] = {'\\', 'u', '0', '0', digits[c >> 4], digits[c & 15]};
        raw(esc, 6);
      }
      start = ++i;
    }
    raw(s + start, n - start);
    raw("\"", 1);
  }
  void key(const char* k) {  // ,"k": handled by the caller's commas
    raw("\"", 1);
    raw(k);
    raw("\":", 2);
  }

  // Bytes written so far (flushed or buffered): where the next one goes in the file.
  uint64_t position() const { return flushed_ + buf_.size(); }

  bool flush() {
    flushed_ += buf_.size();
    size_t off = 0;
    while (ok_ && off < buf_.size()) {
      ssize_t n = ::write(fd_, buf_.data() + off, buf_.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        ok_ = false;
        errno_ = errno;
        break;
      }
      off += static_cast<size_t>(n);
    }
    buf_.clear();
    return ok_;
  }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  int fd_;
  std::string buf_;
  uint64_t flushed_ = 0;
  bool ok_ = true;
  int errno_ = 0;
};

}  // namespace vkleak
