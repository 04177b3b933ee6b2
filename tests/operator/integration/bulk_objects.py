#!/usr/bin/env python3
"""Creates bulky objects in a namespace of the test control plane, as another user of the
namespace could (for cache_bounds_test.sh):

    bulk_objects.py services|jobs COUNT KIB NAMESPACE

services: COUNT headless Services bulk-svc-<i> labelled as a job's (app.kubernetes.io/name:
petname, petname.dev/job-name: bulk-svc-<i>) but owned by no job, each with an annotation of KIB
KiB. jobs: COUNT suspended PetNameTrainingJobs bulk-job-<i> whose spec.template carries an
annotation of KIB KiB. POSTed by 4 connections with the admin client certificate of cluster.env
(PETNAME_APISERVER_URL, PETNAME_CA_FILE, PETNAME_ADMIN_CERT, PETNAME_ADMIN_KEY); exit 1 naming
the first object the API server refused.
"""

import concurrent.futures
import http.client
import json
import os
import ssl
import sys
import urllib.parse


def service(i, ns, blob):
    name = f"bulk-svc-{i}"
    return (f"/api/v1/namespaces/{ns}/services", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "annotations": {"example.com/bulk": blob},
                     "labels": {"app.kubernetes.io/name": "petname",
                                "petname.dev/job-name": name}},
        "spec": {"clusterIP": "None", "ports": [{"port": 80}]}})


def job(i, ns, blob):
    return (f"/apis/petname.dev/v1alpha1/namespaces/{ns}/petnametrainingjobs", {
        "apiVersion": "petname.dev/v1alpha1", "kind": "PetNameTrainingJob",
        "metadata": {"name": f"bulk-job-{i}"},
        "spec": {"replicas": 1, "image": "petname:test", "dataset": {"path": "/data/pets.csv"},
                 "runPolicy": {"suspend": True},
                 "template": {"metadata": {"annotations": {"example.com/bulk": blob}}}}})


def main():
    kind, count, kib, ns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    make = {"services": service, "jobs": job}[kind]
    blob = "x" * (kib * 1024)
    objects = [make(i, ns, blob) for i in range(count)]
    url = urllib.parse.urlparse(os.environ["PETNAME_APISERVER_URL"])
    ctx = ssl.create_default_context(cafile=os.environ["PETNAME_CA_FILE"])
    ctx.load_cert_chain(os.environ["PETNAME_ADMIN_CERT"], os.environ["PETNAME_ADMIN_KEY"])

    def post(batch):
        conn = http.client.HTTPSConnection(url.hostname, url.port, context=ctx, timeout=60)
        for path, obj in batch:
            conn.request("POST", path, json.dumps(obj), {"Content-Type": "application/json"})
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 201:
                return f"{obj['metadata']['name']}: HTTP {resp.status}: {body[:300]!r}"
        return None

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        errors = [e for e in pool.map(post, [objects[k::4] for k in range(4)]) if e]
    if errors:
        print(f"bulk_objects.py: {errors[0]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
