#!/usr/bin/env python3
"""Rewrites Kueue's webhook manifests (config/components/webhook/manifests.yaml, as build.sh
caches them) for a Kueue that runs as a host process next to the test control plane.

    kueue-webhooks.py MANIFESTS BASE_URL CA_FILE GROUP...

Keeps the Mutating/ValidatingWebhookConfigurations' webhooks whose rules name one of the API
GROUPs (kueue-up.sh passes kueue.x-k8s.io and the groups of the enabled integrations: the other
integrations' webhooks answer "allowed" without looking, so leaving them out only spares every
pod, deployment or statefulset write a call to Kueue), points each one at BASE_URL + its service
path (clientConfig.url instead of clientConfig.service) with CA_FILE as caBundle, and names the
configurations kueue-mutating-webhook-configuration / kueue-validating-webhook-configuration as
Kueue's release manifests do. Prints a v1 List (JSON) for `kubectl apply -f -` on stdout.
"""
import base64
import json
import sys

import yaml

NAMES = {
    "MutatingWebhookConfiguration": "kueue-mutating-webhook-configuration",
    "ValidatingWebhookConfiguration": "kueue-validating-webhook-configuration",
}


def webhook_groups(webhook):
    return {group for rule in webhook.get("rules", []) for group in rule.get("apiGroups", [])}


def rewrite(doc, base_url, ca_bundle, groups):
    kept = []
    for webhook in doc.get("webhooks", []):
        if not webhook_groups(webhook) & groups:
            continue
        path = webhook["clientConfig"]["service"]["path"]
        webhook["clientConfig"] = {"url": base_url + path, "caBundle": ca_bundle}
        kept.append(webhook)
    doc["metadata"] = {"name": NAMES[doc["kind"]]}
    doc["webhooks"] = kept
    return doc


def main(argv):
    if len(argv) < 5:
        print("usage: kueue-webhooks.py MANIFESTS BASE_URL CA_FILE GROUP...", file=sys.stderr)
        return 2
    manifests, base_url, ca_file, groups = argv[1], argv[2].rstrip("/"), argv[3], set(argv[4:])
    try:
        with open(ca_file, "rb") as f:
            ca_bundle = base64.b64encode(f.read()).decode()
        with open(manifests, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f)
                    if isinstance(d, dict) and d.get("kind") in NAMES]
    except (OSError, yaml.YAMLError) as e:
        print(f"petname: error: {e}", file=sys.stderr)
        return 1
    if len(docs) != 2:
        print(f"petname: error: {manifests}: expected one Mutating and one Validating "
              f"WebhookConfiguration, found {len(docs)}", file=sys.stderr)
        return 1
    items = [rewrite(d, base_url, ca_bundle, groups) for d in docs]
    json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
