// Typed reads and writes of the optional members of the API's JSON objects (job status and
// progress, sweep status and its rows): a missing or mistyped member reads as empty, and empty
// values are left out when writing, so a status read and written back is unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace petname::api::fields {

using Json = nlohmann::json;

// obj[key] as a string; "" when missing or not a string.
std::string String(const Json& obj, const char* key);
// obj[key] as an integer; 0 when missing or not an integer.
int64_t Int(const Json& obj, const char* key);
// obj[key] as a number; nullopt when missing or not a number.
std::optional<double> Number(const Json& obj, const char* key);
// obj[key] as an RFC 3339 time in Unix seconds; nullopt when missing or malformed.
std::optional<int64_t> Time(const Json& obj, const char* key);

// Sets obj[key] = v when v holds a finite number.
void PutNumber(Json* obj, const char* key, const std::optional<double>& v);
// Sets obj[key] to t in RFC 3339 when t is set.
void PutTime(Json* obj, const char* key, const std::optional<int64_t>& t);

}  // namespace petname::api::fields
