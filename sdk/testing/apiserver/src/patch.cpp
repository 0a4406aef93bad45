#include "patch.hpp"

#include "api_error.hpp"

#include <string>
#include <vector>

namespace dha::testing::apiserver {

void apply_merge_patch(Json& target, const Json& patch, Alloc& alloc, bool strategic) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, alloc);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (strategic && !key.empty() && key.front() == '$') continue;
    if (it->value.IsNull()) {
      remove_member(target, key);
      continue;
    }
    Json* existing = member(target, key);
    if (it->value.IsObject() && existing && existing->IsObject()) {
      apply_merge_patch(*existing, it->value, alloc, strategic);
    } else if (it->value.IsObject()) {
      Json fresh(rapidjson::kObjectType);
      apply_merge_patch(fresh, it->value, alloc, strategic);
      set_member(target, key, std::move(fresh), alloc);
    } else {
      Json copy(it->value, alloc);
      set_member(target, key, std::move(copy), alloc);
    }
  }
}

namespace {

std::vector<std::string> parse_pointer(const std::string& pointer) {
  if (pointer.empty()) return {};
  if (pointer.front() != '/') throw bad_request("invalid JSON pointer " + pointer);
  std::vector<std::string> tokens;
  std::string cur;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(cur);
      cur.clear();
    } else if (pointer[i] == '~' && i + 1 < pointer.size()) {
      cur += pointer[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      cur += pointer[i];
    }
  }
  return tokens;
}

ApiError patch_failed(const std::string& what) { return ApiError(422, "Invalid", what); }

bool parse_index(const std::string& token, std::size_t size, bool allow_end, std::size_t& index) {
  if (allow_end && token == "-") {
    index = size;
    return true;
  }
  if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) return false;
  index = std::stoul(token);
  return allow_end ? index <= size : index < size;
}

// Finds the parent container of the pointer's last token.
Json* parent_of(Json& root, const std::vector<std::string>& tokens, const std::string& path) {
  Json* cur = &root;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (cur->IsObject()) {
      cur = member(*cur, tokens[i]);
    } else if (cur->IsArray()) {
      std::size_t idx = 0;
      cur = parse_index(tokens[i], cur->Size(), false, idx) ? &(*cur)[static_cast<rapidjson::SizeType>(idx)] : nullptr;
    } else {
      cur = nullptr;
    }
    if (!cur)
      throw patch_failed("the server rejected our request due to an error in our request: doc is missing path: \"" +
                         path + "\": missing value");
  }
  return cur;
}

Json* resolve_pointer(Json& root, const std::string& path) {
  auto tokens = parse_pointer(path);
  if (tokens.empty()) return &root;
  Json* parent = parent_of(root, tokens, path);
  if (parent->IsObject()) return member(*parent, tokens.back());
  std::size_t idx = 0;
  if (parent->IsArray() && parse_index(tokens.back(), parent->Size(), false, idx))
    return &(*parent)[static_cast<rapidjson::SizeType>(idx)];
  return nullptr;
}

void add_at(Json& root, const std::string& path, Json value, Alloc& alloc) {
  auto tokens = parse_pointer(path);
  if (tokens.empty()) {
    root = value;
    return;
  }
  Json* parent = parent_of(root, tokens, path);
  if (parent->IsObject()) {
    set_member(*parent, tokens.back(), std::move(value), alloc);
  } else if (parent->IsArray()) {
    std::size_t idx = 0;
    if (!parse_index(tokens.back(), parent->Size(), true, idx))
      throw patch_failed(
          "the server rejected our request due to an error in our request: add operation does not apply: doc is "
          "missing path: \"" +
          path + "\": missing value");
    parent->PushBack(Json(), alloc);
    for (std::size_t i = parent->Size() - 1; i > idx; --i)
      (*parent)[static_cast<rapidjson::SizeType>(i)] = (*parent)[static_cast<rapidjson::SizeType>(i - 1)];
    (*parent)[static_cast<rapidjson::SizeType>(idx)] = value;
  } else {
    throw patch_failed("the server rejected our request due to an error in our request: doc is missing path: \"" +
                       path + "\": missing value");
  }
}

void remove_at(Json& root, const std::string& path, Json* removed, Alloc& alloc) {
  auto tokens = parse_pointer(path);
  if (tokens.empty()) throw patch_failed("cannot remove the document root");
  Json* parent = parent_of(root, tokens, path);
  auto missing = [&] {
    return patch_failed(
        "the server rejected our request due to an error in our request: remove operation does not apply: doc is "
        "missing path: \"" +
        path + "\": missing value");
  };
  if (parent->IsObject()) {
    Json* v = member(*parent, tokens.back());
    if (!v) throw missing();
    if (removed) removed->CopyFrom(*v, alloc);
    remove_member(*parent, tokens.back());
  } else if (parent->IsArray()) {
    std::size_t idx = 0;
    if (!parse_index(tokens.back(), parent->Size(), false, idx)) throw missing();
    if (removed) removed->CopyFrom((*parent)[static_cast<rapidjson::SizeType>(idx)], alloc);
    parent->Erase(parent->Begin() + idx);
  } else {
    throw missing();
  }
}

}  // namespace

void apply_json_patch(Json& target, const Json& patch, Alloc& alloc) {
  if (!patch.IsArray()) throw bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  for (const auto& op_json : patch.GetArray()) {
    std::string op = string_at(op_json, {"op"});
    std::string path = string_at(op_json, {"path"});
    const Json* value = member(op_json, "value");
    if (op.empty() || !member(op_json, "path"))
      throw bad_request("the server rejected our request due to an error in our request: invalid JSON patch operation");
    if (op == "add" || op == "replace") {
      if (!value)
        throw bad_request("the server rejected our request due to an error in our request: missing value for " + op);
      if (op == "replace") {
        Json* existing = resolve_pointer(target, path);
        if (!existing)
          throw patch_failed(
              "the server rejected our request due to an error in our request: replace operation does not apply: doc "
              "is missing key: " +
              path + ": missing value");
        existing->CopyFrom(*value, alloc);
      } else {
        add_at(target, path, Json(*value, alloc), alloc);
      }
    } else if (op == "remove") {
      remove_at(target, path, nullptr, alloc);
    } else if (op == "move" || op == "copy") {
      std::string from = string_at(op_json, {"from"});
      Json moved;
      if (op == "move") {
        remove_at(target, from, &moved, alloc);
      } else {
        Json* src = resolve_pointer(target, from);
        if (!src)
          throw patch_failed(
              "the server rejected our request due to an error in our request: copy operation does not apply: doc is "
              "missing from path: " +
              from + ": missing value");
        moved.CopyFrom(*src, alloc);
      }
      add_at(target, path, std::move(moved), alloc);
    } else if (op == "test") {
      Json* existing = resolve_pointer(target, path);
      if (!existing || !value || !(*existing == *value))
        throw patch_failed("the server rejected our request due to an error in our request: testing value " + path +
                           " failed: test failed");
    } else {
      throw bad_request("the server rejected our request due to an error in our request: Unexpected kind: " + op);
    }
  }
}

}  // namespace dha::testing::apiserver
