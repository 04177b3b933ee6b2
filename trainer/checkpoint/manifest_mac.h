// Signing manifest.json with the job's secret, so that a checkpoint planted in a job's
// directory by anyone without the secret is refused. Pure; no LibTorch.
//
// The key: where the operator runs the job (PETNAME_JOB_UID set), its rendezvous secret
// (PETNAME_RENDEZVOUS_SECRET, from the job's own Secret, which outlives the job's pods and
// restarts). Anywhere else the key is empty and checkpoints are written and read unsigned, as
// before: ranks started by `petname train --nproc N` share a secret made up for that launch
// only, and a secret exported for ranks started by hand may differ from one launch to the next.
//
// The MAC: HMAC-SHA256 under the key of "petname checkpoint manifest\n" followed by the
// manifest's JSON without its "mac" member, compact and with sorted keys (nlohmann::json's
// dump()), so that it does not depend on the file's whitespace. It is kept in the manifest as
// "mac" (64 lower-case hex digits). The manifest carries the sha256 of every other file of the
// checkpoint, so the MAC covers the checkpoint as a whole. The prefix keeps it apart from the
// MACs the same secret makes at rendezvous (distributed/peer_check.h).
//
// With a key, a manifest without "mac", or whose MAC does not verify, is damaged
// (Corruption): the store skips it for an older checkpoint like any other damage
// (store.h). Without a key, "mac" is not checked.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/checkpoint/owner.h"

namespace petname::checkpoint {

// The key above, from the environment. InvalidArgument when PETNAME_JOB_UID is set and
// PETNAME_RENDEZVOUS_SECRET is empty or unset (the operator always passes it).
Status CheckpointKeyFromEnvironment(const OwnerEnv& env, std::string* key);

// The "mac" of the manifest `j` (a JSON object; a "mac" member in it is ignored) under `key`.
std::string ManifestMac(const nlohmann::json& j, const std::string& key);

// Ok when `key` is empty, or `j` carries a "mac" that verifies under it. Corruption otherwise:
// "manifest.json is not signed with this job's key" or "manifest.json's mac does not verify
// with this job's key".
Status CheckManifestMac(const nlohmann::json& j, const std::string& key);

// The line generate and export print about the checkpoint `dir` they read with `key`, e.g.
// "checkpoint /c/epoch-000003 (epoch 3) of job ml/rex (uid …), signed with this job's key";
// the signature is "signed with this job's key" (checked), "signed, not checked (no job key
// here)" or "not signed".
std::string DescribeCheckpoint(const std::string& dir, const Manifest& manifest,
                               const std::string& key);

}  // namespace petname::checkpoint
