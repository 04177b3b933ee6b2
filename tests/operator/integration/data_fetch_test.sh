#!/usr/bin/env bash
# spec.dataset.url on a real API server: the rank pods the operator creates (and the server
# admits) carry the fetch-data init container with its argv, the dataset emptyDir mounted in it
# and in the trainer, and `--data` pointing into it; a fetch-data container that exits 1 (as the
# kubelet reports it, its termination message the `petname fetch` error line) fails the job at
# once with reason DataFetchFailed naming the checksum, without a restart under OnFailure.
source "$(dirname "$0")/lib.sh"

sum=$(printf 'a%.0s' $(seq 64))
got=$(printf 'b%.0s' $(seq 64))
url='https://data.example.org/pets/seattle.csv'
start_operator
k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: fetched}
spec:
  replicas: 2
  image: petname:test
  dataset: {url: "https://user:pw@data.example.org/pets/seattle.csv?sig=s3cret", sha256: $sum}
YAML
wait_until "fetched pods" 30 has_pods fetched 2

pod=$(k get pod fetched-rank-1 -o json)
init=$(jq -c '.spec.initContainers[0]' <<<"$pod")
[[ $(jq -r .name <<<"$init") == fetch-data ]] || fail "no fetch-data init container: $init"
want=$(jq -cn --arg u "https://user:pw@data.example.org/pets/seattle.csv?sig=s3cret" --arg s "$sum" \
  '["fetch","--url",$u,"--sha256",$s,"--output","/var/petname/data/seattle.csv","--termination-log","/dev/termination-log"]')
[[ $(jq -c .args <<<"$init") == "$want" ]] || fail "fetch-data args: $(jq -c .args <<<"$init")"
[[ $(jq -c .command <<<"$init") == '["petname"]' ]] || fail "fetch-data command: $(jq -c .command <<<"$init")"
[[ $(jq -r .securityContext.readOnlyRootFilesystem <<<"$init") == true ]] || fail "fetch-data must have a read-only root"
[[ $(jq -c '.volumeMounts' <<<"$init") == '[{"mountPath":"/var/petname/data","name":"dataset"}]' ]] ||
  fail "fetch-data mounts: $(jq -c .volumeMounts <<<"$init")"
[[ $(jq -c '.spec.volumes[] | select(.name == "dataset") | .emptyDir' <<<"$pod") == '{}' ]] ||
  fail "the dataset volume must be an emptyDir"
[[ $(jq -r '.spec.containers[0].volumeMounts[] | select(.name == "dataset") | .mountPath' <<<"$pod") == /var/petname/data ]] ||
  fail "the trainer must mount the dataset volume"
[[ $(jq -r '.spec.containers[0].args | index("--data") as $i | .[$i + 1]' <<<"$pod") == /var/petname/data/seattle.csv ]] ||
  fail "the trainer must read the fetched file"

line="petname: error: fetch $url: sha256 mismatch: expected $sum, got $got (3 bytes; nothing was written to /var/petname/data/seattle.csv)"
msg=$(jq -Rs . <<<"$line")
k patch pod fetched-rank-0 --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Failed\",
  \"initContainerStatuses\":[{\"name\":\"fetch-data\",\"image\":\"petname:test\",\"imageID\":\"\",
    \"ready\":false,\"restartCount\":0,
    \"state\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\",\"message\":$msg}}}],
  \"containerStatuses\":[{\"name\":\"trainer\",\"image\":\"petname:test\",\"imageID\":\"\",
    \"ready\":false,\"restartCount\":0,\"state\":{\"waiting\":{\"reason\":\"PodInitializing\"}}}]}}" >/dev/null
wait_until "fetched Failed" 20 phase_is fetched Failed
cond_reason_is fetched Failed DataFetchFailed || fail "Failed reason: $(cond fetched Failed reason)"
message=$(cond fetched Failed message)
[[ $message == *"init container fetch-data: exit code 1"*"sha256 mismatch: expected $sum, got $got"* ]] ||
  fail "the Failed message must name the checksum: $message"
[[ $message != *s3cret* && $message != *user:pw* ]] || fail "the message leaks the URL's secrets: $message"
[[ $(job_field fetched '{.status.restarts}') == 0 ]] || fail "a failed fetch must not restart the job"
wait_until "DataFetchFailed event" 20 has_event fetched DataFetchFailed
stop_operator
log PASS
