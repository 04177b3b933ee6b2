// TlsMaterial: the TLS side of a RestClient (rest_client.h): the RestConfig's CA bundle, client
// certificate and key, parsed and validated once (ParseTls), and the cpprestsdk client
// configuration that installs them on every connection (HttpClientConfig), with verification on
// unless the config disables it explicitly.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include <cpprest/http_client.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "common/status.h"
#include "operator/kube/rest_config.h"

namespace petname::kube {

// The TLS material of a RestConfig, parsed once: cpprestsdk builds an SSL context per connection,
// and re-decoding the PEM (slow in OpenSSL 3) for each one is wasted work. Also validates it.
struct TlsMaterial {
  X509_STORE* store = nullptr;  // trusted CAs: the config's, or the system's
  std::vector<X509*> chain;     // client certificate first, then its chain
  EVP_PKEY* key = nullptr;

  TlsMaterial() = default;
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;
  ~TlsMaterial() {
    X509_STORE_free(store);
    for (X509* c : chain) X509_free(c);
    EVP_PKEY_free(key);
  }
};

// InvalidArgument when the CA, client certificate or key PEM cannot be parsed.
Status ParseTls(const RestConfig& cfg, std::shared_ptr<TlsMaterial>* out);

// The cpprestsdk client configuration for the server of `cfg`: requests time out after
// `timeout`, and every connection trusts and presents `tls`.
web::http::client::http_client_config HttpClientConfig(const RestConfig& cfg,
                                                       std::chrono::seconds timeout,
                                                       const std::shared_ptr<TlsMaterial>& tls);

}  // namespace petname::kube
