#include "operator/kube/rest_config.h"

#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/file_util.h"

namespace petname::kube {
namespace {

// Finds the entry named `name` in a kubeconfig list (clusters, users, contexts) and returns its
// `field` map (cluster, user, context).
Status FindNamed(const YAML::Node& root, const char* list, const char* field,
                 const std::string& name, YAML::Node* out) {
  const YAML::Node items = root[list];
  if (items && items.IsSequence()) {
    for (const YAML::Node& item : items) {
      if (item["name"] && item["name"].as<std::string>() == name) {
        *out = item[field];
        if (!out->IsDefined() || !out->IsMap()) {
          return Status::InvalidArgument(std::string("kubeconfig: ") + list + " entry '" + name +
                                         "' has no " + field + " map");
        }
        return Status::Ok();
      }
    }
  }
  return Status::InvalidArgument(std::string("kubeconfig: no ") + field + " named '" + name +
                                 "' in " + list);
}

std::string Str(const YAML::Node& map, const char* key) {
  const YAML::Node v = map[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

std::string Resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return base_dir + "/" + path;
}

// Fills *pem from `<key>-data` (base64) or from the file named by `<key>`.
Status PemField(const YAML::Node& map, const std::string& key, const std::string& base_dir,
                std::string* pem) {
  std::string data = Str(map, (key + "-data").c_str());
  if (!data.empty()) {
    std::vector<unsigned char> bin = YAML::DecodeBase64(data);
    if (bin.empty()) {
      return Status::InvalidArgument("kubeconfig: " + key + "-data is not valid base64");
    }
    pem->assign(reinterpret_cast<const char*>(bin.data()), bin.size());
    return Status::Ok();
  }
  std::string file = Str(map, key.c_str());
  if (file.empty()) return Status::Ok();
  Status s = ReadFile(Resolve(base_dir, file), pem);
  if (!s.ok()) return Status::InvalidArgument("kubeconfig: " + key + ": " + s.message());
  return Status::Ok();
}

}  // namespace

Status ParseKubeconfig(const std::string& yaml_text, const std::string& base_dir,
                       const std::string& context, RestConfig* out) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(std::string("kubeconfig: not valid YAML: ") + e.what());
  }
  if (!root.IsMap()) return Status::InvalidArgument("kubeconfig: not a YAML map");
  try {
    std::string ctx_name = context.empty() ? Str(root, "current-context") : context;
    if (ctx_name.empty()) return Status::InvalidArgument("kubeconfig: no current-context");
    YAML::Node ctx, cluster, user;
    PETNAME_RETURN_IF_ERROR(FindNamed(root, "contexts", "context", ctx_name, &ctx));
    PETNAME_RETURN_IF_ERROR(FindNamed(root, "clusters", "cluster", Str(ctx, "cluster"), &cluster));
    RestConfig cfg;
    cfg.namespace_ = Str(ctx, "namespace");
    cfg.server = Str(cluster, "server");
    while (!cfg.server.empty() && cfg.server.back() == '/') cfg.server.pop_back();
    if (cfg.server.empty()) return Status::InvalidArgument("kubeconfig: cluster has no server");
    cfg.insecure_skip_tls_verify = Str(cluster, "insecure-skip-tls-verify") == "true";
    PETNAME_RETURN_IF_ERROR(PemField(cluster, "certificate-authority", base_dir, &cfg.ca_pem));
    std::string user_name = Str(ctx, "user");
    if (!user_name.empty()) {
      PETNAME_RETURN_IF_ERROR(FindNamed(root, "users", "user", user_name, &user));
      PETNAME_RETURN_IF_ERROR(PemField(user, "client-certificate", base_dir, &cfg.client_cert_pem));
      PETNAME_RETURN_IF_ERROR(PemField(user, "client-key", base_dir, &cfg.client_key_pem));
      cfg.token = Str(user, "token");
      cfg.token_file = Resolve(base_dir, Str(user, "tokenFile"));
    }
    if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty()) {
      return Status::InvalidArgument(
          "kubeconfig: user has a client certificate without a key or "
          "a key without a certificate");
    }
    *out = std::move(cfg);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(std::string("kubeconfig: malformed: ") + e.what());
  }
  return Status::Ok();
}

Status LoadKubeconfig(const std::string& path, const std::string& context, RestConfig* out) {
  std::string text;
  Status s = ReadFile(path, &text);
  if (!s.ok()) return Status::InvalidArgument("kubeconfig " + path + ": " + s.message());
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  return ParseKubeconfig(text, dir, context, out);
}

Status InClusterConfig(const std::function<const char*(const char*)>& getenv,
                       const std::string& sa_dir, RestConfig* out) {
  const char* host = getenv("KUBERNETES_SERVICE_HOST");
  const char* port = getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return Status::NotFound("not in a cluster: KUBERNETES_SERVICE_HOST/PORT are not set");
  }
  RestConfig cfg;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  cfg.server = "https://" + h + ":" + port;
  cfg.token_file = sa_dir + "/token";
  PETNAME_RETURN_IF_ERROR(ReadFile(cfg.token_file, &cfg.token));
  PETNAME_RETURN_IF_ERROR(ReadFile(sa_dir + "/ca.crt", &cfg.ca_pem));
  if (!ReadFile(sa_dir + "/namespace", &cfg.namespace_).ok()) cfg.namespace_.clear();
  *out = std::move(cfg);
  return Status::Ok();
}

}  // namespace petname::kube
