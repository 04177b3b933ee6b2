#include "operator/kube/tls_material.h"

#include <cstdlib>
#include <string>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>

namespace petname::kube {
namespace {

std::vector<X509*> ReadCerts(const std::string& pem) {
  std::vector<X509*> out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* c = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.push_back(c);
  BIO_free(bio);
  ERR_clear_error();  // the end of the PEM data reads as an error
  return out;
}

// cpprestsdk calls SSL_CTX_set_default_verify_paths() for every new connection before our
// callback replaces the store; it parses the whole system CA bundle each time (150-250 ms of CPU
// on a loaded 2-core machine, against ~40 ms for the TLS handshake itself). Pointing SSL_CERT_FILE
// at an empty file makes that call cheap: every RestClient installs its own store (the config's
// CAs, or the system's loaded once by SystemStore()). Done once per process, by the first
// Create(), before any request of ours runs; returns the CA file in force before.
const std::string& SkipDefaultCaFile() {
  static const std::string before = [] {
    const char* env = std::getenv(X509_get_default_cert_file_env());
    std::string file = env != nullptr ? env : X509_get_default_cert_file();
    setenv(X509_get_default_cert_file_env(), "/dev/null", 1);
    return file;
  }();
  return before;
}

// The system's trusted CAs: the CA file in force at startup plus the hashed CA directory.
X509_STORE* SystemStore() {
  static X509_STORE* const store = [] {
    X509_STORE* s = X509_STORE_new();
    X509_STORE_set_default_paths(s);
    X509_STORE_load_file(s, SkipDefaultCaFile().c_str());
    ERR_clear_error();
    return s;
  }();
  return store;
}

}  // namespace

Status ParseTls(const RestConfig& cfg, std::shared_ptr<TlsMaterial>* out) {
  SkipDefaultCaFile();
  auto tls = std::make_shared<TlsMaterial>();
  if (cfg.ca_pem.empty()) {
    tls->store = SystemStore();
    X509_STORE_up_ref(tls->store);
  } else {
    tls->store = X509_STORE_new();
    std::vector<X509*> cas = ReadCerts(cfg.ca_pem);
    if (cas.empty()) return Status::InvalidArgument("the CA bundle holds no PEM certificate");
    for (X509* c : cas) {
      X509_STORE_add_cert(tls->store, c);
      X509_free(c);
    }
  }
  if (!cfg.client_cert_pem.empty()) {
    tls->chain = ReadCerts(cfg.client_cert_pem);
    if (tls->chain.empty()) {
      return Status::InvalidArgument("the client certificate is not a PEM certificate");
    }
    BIO* bio =
        BIO_new_mem_buf(cfg.client_key_pem.data(), static_cast<int>(cfg.client_key_pem.size()));
    tls->key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ERR_clear_error();
    if (tls->key == nullptr) return Status::InvalidArgument("the client key is not a PEM key");
  }
  *out = std::move(tls);
  return Status::Ok();
}

web::http::client::http_client_config HttpClientConfig(const RestConfig& cfg,
                                                       std::chrono::seconds timeout,
                                                       const std::shared_ptr<TlsMaterial>& tls) {
  web::http::client::http_client_config c;
  c.set_timeout(timeout);
  c.set_validate_certificates(!cfg.insecure_skip_tls_verify);
  c.set_ssl_context_callback([tls](boost::asio::ssl::context& ctx) {
    SSL_CTX* native = ctx.native_handle();
    SSL_CTX_set1_cert_store(native, tls->store);
    if (!tls->chain.empty() && tls->key != nullptr) {
      SSL_CTX_use_certificate(native, tls->chain[0]);
      for (size_t i = 1; i < tls->chain.size(); ++i) SSL_CTX_add1_chain_cert(native, tls->chain[i]);
      SSL_CTX_use_PrivateKey(native, tls->key);
    }
  });
  return c;
}

}  // namespace petname::kube
