#include "trainer/fetch/fetch.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "common/backoff.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "common/url.h"
#include "trainer/fetch/attempt.h"

namespace petname::fetch {
namespace {

constexpr int kMaxRetries = 100;
constexpr long kMaxRedirects = 10;

// The temporary file beside the output: removed on destruction unless Keep() was called.
class TempFile {
 public:
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  Status Create(const std::string& output) {
    const size_t slash = output.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : output.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? output : output.substr(slash + 1);
    std::string tmpl = (slash == std::string::npos ? "" : dir) + "." + name + ".part-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd_ = ::mkstemp(buf.data());
    if (fd_ < 0) {
      const int err = errno;
      return Status::IoError("cannot create a file in " + dir + ": " + std::strerror(err), err);
    }
    path_ = buf.data();
    dir_ = slash == std::string::npos ? "." : (slash == 0 ? "/" : output.substr(0, slash));
    ::fchmod(fd_, 0644);
    return Status::Ok();
  }
  // Empties the file for another attempt.
  Status Rewind() {
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
      const int err = errno;
      return Status::IoError("cannot truncate " + path_ + ": " + std::strerror(err), err);
    }
    return Status::Ok();
  }
  // fsync, close and rename over `output`, then fsync the directory.
  Status Publish(const std::string& output) {
    if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
      const int err = errno;
      fd_ = -1;
      return Status::IoError("cannot write " + path_ + ": " + std::strerror(err), err);
    }
    fd_ = -1;
    if (::rename(path_.c_str(), output.c_str()) != 0) {
      const int err = errno;
      return Status::IoError("cannot rename the download to " + output + ": " + std::strerror(err),
                             err);
    }
    path_.clear();
    return FsyncDirectory(dir_);
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string path_;
  std::string dir_;
};

// Where the body of one attempt goes.
struct Sink {
  int fd = -1;
  int64_t max_bytes = 0;
  int64_t bytes = 0;
  bool too_large = false;
  int write_errno = 0;
  Sha256 hash;
};

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t len = size * count;
  if (sink->bytes + static_cast<int64_t>(len) > sink->max_bytes) {
    sink->too_large = true;
    return 0;  // anything but `len` ends the transfer (CURLE_WRITE_ERROR)
  }
  size_t done = 0;
  while (done < len) {
    const ssize_t n = ::write(sink->fd, data + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      sink->write_errno = n < 0 ? errno : EIO;
      return 0;
    }
    done += static_cast<size_t>(n);
  }
  sink->hash.Update(std::string_view(data, len));
  sink->bytes += static_cast<int64_t>(len);
  return len;
}

// Adds the CAs of the PEM file (the callback's user pointer) to those curl loaded.
CURLcode AddCaFile(CURL* /*curl*/, void* ssl_ctx, void* user) {
  const auto* path = static_cast<const std::string*>(user);
  X509_STORE* store = SSL_CTX_get_cert_store(static_cast<SSL_CTX*>(ssl_ctx));
  return X509_STORE_load_file(store, path->c_str()) == 1 ? CURLE_OK : CURLE_SSL_CACERT_BADFILE;
}

Failure Classify(CURLcode code, const Sink& sink) {
  switch (code) {
    case CURLE_OK:
      return Failure::kNone;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      return Failure::kConnect;
    case CURLE_OPERATION_TIMEDOUT:
      return Failure::kTimeout;
    case CURLE_HTTP_RETURNED_ERROR:
      return Failure::kHttpStatus;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_CIPHER:
      return Failure::kTls;
    case CURLE_FILESIZE_EXCEEDED:
      return Failure::kTooLarge;
    case CURLE_WRITE_ERROR:
      return sink.too_large ? Failure::kTooLarge : Failure::kLocal;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_TOO_MANY_REDIRECTS:
      return Failure::kRedirect;
    default:
      return Failure::kTransfer;
  }
}

using Clock = std::chrono::steady_clock;

// One transfer into `sink`, ending within `time_left` (at least 1 ms).
Attempt Transfer(const FetchOptions& o, std::chrono::milliseconds time_left, Sink* sink) {
  Attempt attempt;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    attempt.failure = Failure::kLocal;
    attempt.detail = "libcurl could not start a transfer";
    return attempt;
  }
  char error[CURL_ERROR_SIZE] = {};
  const long timeout = o.timeout_seconds;
  curl_easy_setopt(curl, CURLOPT_URL, o.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, kMaxRedirects);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeout);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, kLowSpeedBytesPerSecond);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, timeout);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::max<int64_t>(1, time_left.count())));
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(o.max_bytes));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "petname-fetch");
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, sink);
  if (!o.ca_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSL_CTX_FUNCTION, AddCaFile);
    curl_easy_setopt(curl, CURLOPT_SSL_CTX_DATA, &o.ca_file);
  }
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &attempt.http_status);
  curl_easy_cleanup(curl);
  attempt.failure = Classify(code, *sink);
  attempt.detail = error[0] != '\0' ? error : curl_easy_strerror(code);
  if (attempt.failure == Failure::kTooLarge) {
    attempt.detail = "more than --max-bytes " + std::to_string(o.max_bytes) + " bytes";
  } else if (attempt.failure == Failure::kLocal && sink->write_errno != 0) {
    attempt.detail = std::strerror(sink->write_errno);
  }
  return attempt;
}

bool IsHex64(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

Status CheckFetchOptions(FetchOptions* o) {
  DownloadUrl url;
  Status parsed = ParseDownloadUrl(o->url, &url);
  if (!parsed.ok()) return Status::InvalidArgument("--url: " + parsed.message());
  if (!IsHex64(o->sha256)) {
    return Status::InvalidArgument("--sha256 must be 64 hex digits (the file's SHA-256)");
  }
  std::transform(o->sha256.begin(), o->sha256.end(), o->sha256.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (o->output.empty()) return Status::InvalidArgument("--output must not be empty");
  if (o->max_bytes <= 0) return Status::InvalidArgument("--max-bytes must be positive");
  if (o->timeout_seconds <= 0) return Status::InvalidArgument("--timeout must be positive");
  if (o->deadline_seconds <= 0) return Status::InvalidArgument("--deadline must be positive");
  if (o->retries < 0 || o->retries > kMaxRetries) {
    return Status::InvalidArgument("--retries must be 0 to " + std::to_string(kMaxRetries));
  }
  if (!o->ca_file.empty() && ::access(o->ca_file.c_str(), R_OK) != 0) {
    return Status::InvalidArgument("--ca-file " + o->ca_file + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status Fetch(const FetchOptions& o, int64_t* bytes) {
  const std::string where = "fetch " + RedactUrl(o.url) + ": ";
  InitCurlOnce();
  TempFile temp;
  Status created = temp.Create(o.output);
  if (!created.ok()) return Status::IoError(where + created.message(), created.os_error());
  Backoff backoff(o.backoff_base, o.backoff_cap, std::random_device{}());
  const int attempts = o.retries + 1;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(o.deadline_seconds);
  auto time_left = [&deadline] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  };
  const std::string deadline_reached =
      "; --deadline " + std::to_string(o.deadline_seconds) + " s reached";
  for (int n = 1;; ++n) {
    Sink sink;
    sink.fd = temp.fd();
    sink.max_bytes = o.max_bytes;
    const Attempt attempt = Transfer(o, time_left(), &sink);
    if (attempt.failure == Failure::kNone) {
      const std::string got = sink.hash.HexDigest();
      if (got != o.sha256) {
        return Status::Corruption(where + "sha256 mismatch: expected " + o.sha256 + ", got " + got +
                                  " (" + std::to_string(sink.bytes) +
                                  " bytes; nothing was written to " + o.output + ")");
      }
      Status published = temp.Publish(o.output);
      if (!published.ok())
        return Status::IoError(where + published.message(), published.os_error());
      *bytes = sink.bytes;
      return Status::Ok();
    }
    if (!ShouldRetry(attempt) || n >= attempts) {
      const std::string message = where + DescribeFailure(attempt, n);
      if (attempt.failure == Failure::kLocal) return Status::IoError(message, sink.write_errno);
      return Status::Unavailable(message + (time_left().count() <= 0 ? deadline_reached : ""));
    }
    const Backoff::Millis delay = backoff.Next();
    if (time_left() <= delay) {
      return Status::Unavailable(where + DescribeFailure(attempt, n) + deadline_reached);
    }
    std::fprintf(stderr, "petname: warning: %s%s; attempt %d of %d in %lld ms\n", where.c_str(),
                 DescribeFailure(attempt, 1).c_str(), n + 1, attempts,
                 static_cast<long long>(delay.count()));
    std::this_thread::sleep_for(delay);
    PETNAME_RETURN_IF_ERROR(temp.Rewind());
  }
}

}  // namespace petname::fetch
