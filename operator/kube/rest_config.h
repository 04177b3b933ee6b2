// RestConfig: how to reach and authenticate to a kube-apiserver, from a kubeconfig file (outside a
// cluster) or from the pod's service account (in-cluster). Pure: no network.
#pragma once

#include <functional>
#include <string>

#include "common/status.h"

namespace petname::kube {

struct RestConfig {
  std::string server;           // https://host:port, no trailing slash
  std::string ca_pem;           // trusted CA bundle; empty = the system store
  std::string client_cert_pem;  // client certificate chain (with client_key_pem)
  std::string client_key_pem;
  std::string token;       // bearer token given inline
  std::string token_file;  // bearer token re-read from this file (rotated service-account tokens)
  bool insecure_skip_tls_verify = false;  // only when the kubeconfig says so explicitly
  std::string namespace_;                 // the context's namespace ("" when unset)
};

// Parses kubeconfig YAML text: the current context (or `context` when not empty), its cluster
// (server, certificate-authority[-data], insecure-skip-tls-verify) and user (client-certificate
// [-data], client-key[-data], token, tokenFile). Relative file paths are resolved against
// `base_dir`. Fails with InvalidArgument naming what is missing or malformed.
Status ParseKubeconfig(const std::string& yaml_text, const std::string& base_dir,
                       const std::string& context, RestConfig* out);

// Reads and parses the kubeconfig file at `path`.
Status LoadKubeconfig(const std::string& path, const std::string& context, RestConfig* out);

// In-cluster config: KUBERNETES_SERVICE_HOST/PORT from `getenv`, token, ca.crt and namespace
// from `sa_dir` (normally /var/run/secrets/kubernetes.io/serviceaccount). NotFound when not in a
// cluster.
Status InClusterConfig(const std::function<const char*(const char*)>& getenv,
                       const std::string& sa_dir, RestConfig* out);

}  // namespace petname::kube
