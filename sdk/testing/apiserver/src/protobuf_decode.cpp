#include "protobuf_decode.hpp"

#include "api_error.hpp"

#include <cstdint>
#include <functional>

namespace dha::testing::apiserver {

namespace {

ApiError unsupported(const std::string& why) {
  return ApiError(415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types include: application/json, "
                  "application/yaml (protobuf: " +
                      why + ")");
}

// One protobuf field: number, wire type, and either a varint or a length-delimited view.
struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  uint64_t varint = 0;
  std::string_view bytes;
};

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool next(Field& f) {
    if (pos_ >= data_.size()) return false;
    uint64_t key = varint();
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<uint32_t>(key & 7);
    if (f.wire == 0) {
      f.varint = varint();
    } else if (f.wire == 2) {
      uint64_t len = varint();
      if (len > data_.size() - pos_) throw unsupported("truncated field");
      f.bytes = data_.substr(pos_, len);
      pos_ += len;
    } else if (f.wire == 1) {
      skip(8);
    } else if (f.wire == 5) {
      skip(4);
    } else {
      throw unsupported("unsupported wire type");
    }
    return true;
  }

 private:
  uint64_t varint() {
    uint64_t out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) throw unsupported("truncated varint");
      auto b = static_cast<uint8_t>(data_[pos_++]);
      out |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return out;
    }
    throw unsupported("bad varint");
  }
  void skip(std::size_t n) {
    if (n > data_.size() - pos_) throw unsupported("truncated field");
    pos_ += n;
  }
  std::string_view data_;
  std::size_t pos_ = 0;
};

Json str(std::string_view s, Alloc& a) { return Json(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); }

// map<string, string|bytes|Quantity> entries are messages {1: key, 2: value}.
void add_map_entry(Json& object, std::string_view entry, Alloc& a, bool base64_value, bool quantity_value) {
  Reader r(entry);
  Field f;
  std::string_view key, value;
  while (r.next(f)) {
    if (f.number == 1) key = f.bytes;
    if (f.number == 2) value = f.bytes;
  }
  if (quantity_value) {  // resource.Quantity {1: string}
    Reader q(value);
    Field qf;
    std::string_view text;
    while (q.next(qf))
      if (qf.number == 1) text = qf.bytes;
    value = text;
  }
  if (!object.IsObject()) object.SetObject();
  std::string v = base64_value ? base64_encode(value) : std::string(value);
  set_member(object, std::string(key), str(v, a), a);
}

void append_string(Json& array, std::string_view s, Alloc& a) {
  if (!array.IsArray()) array.SetArray();
  array.PushBack(str(s, a), a);
}

Json object_meta(std::string_view bytes, Alloc& a) {
  Json meta(rapidjson::kObjectType);
  Json labels, annotations, finalizers;
  Reader r(bytes);
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        set_member(meta, "name", str(f.bytes, a), a);
        break;
      case 2:
        set_member(meta, "generateName", str(f.bytes, a), a);
        break;
      case 3:
        set_member(meta, "namespace", str(f.bytes, a), a);
        break;
      case 6:
        set_member(meta, "resourceVersion", str(f.bytes, a), a);
        break;
      case 11:
        add_map_entry(labels, f.bytes, a, false, false);
        break;
      case 12:
        add_map_entry(annotations, f.bytes, a, false, false);
        break;
      case 14:
        append_string(finalizers, f.bytes, a);
        break;
      default:
        break;  // system fields the server sets itself
    }
  }
  if (labels.IsObject()) set_member(meta, "labels", std::move(labels), a);
  if (annotations.IsObject()) set_member(meta, "annotations", std::move(annotations), a);
  if (finalizers.IsArray()) set_member(meta, "finalizers", std::move(finalizers), a);
  return meta;
}

// Decodes the kind-specific fields of the object message.
void decode_object(const std::string& kind, std::string_view raw, JsonDoc& out) {
  auto& a = out.GetAllocator();
  Json data, binary, hard, string_data, spec_finalizers;
  Reader r(raw);
  Field f;
  while (r.next(f)) {
    if (f.number == 1 && f.wire == 2) {
      set_member(out, "metadata", object_meta(f.bytes, a), a);
      continue;
    }
    if (kind == "Namespace" && f.number == 2) {
      Reader spec(f.bytes);
      Field sf;
      while (spec.next(sf))
        if (sf.number == 1) append_string(spec_finalizers, sf.bytes, a);
    } else if (kind == "ConfigMap") {
      if (f.number == 2) add_map_entry(data, f.bytes, a, false, false);
      if (f.number == 3) add_map_entry(binary, f.bytes, a, true, false);
      if (f.number == 4) set_member(out, "immutable", Json(f.varint != 0), a);
    } else if (kind == "Secret") {
      if (f.number == 2) add_map_entry(data, f.bytes, a, true, false);
      if (f.number == 3) set_member(out, "type", str(f.bytes, a), a);
      if (f.number == 4) add_map_entry(string_data, f.bytes, a, false, false);
      if (f.number == 5) set_member(out, "immutable", Json(f.varint != 0), a);
    } else if (kind == "ResourceQuota" && f.number == 2) {
      Reader spec(f.bytes);
      Field sf;
      while (spec.next(sf))
        if (sf.number == 1) add_map_entry(hard, sf.bytes, a, false, true);
    }
  }
  if (data.IsObject()) set_member(out, "data", std::move(data), a);
  if (binary.IsObject()) set_member(out, "binaryData", std::move(binary), a);
  if (string_data.IsObject()) set_member(out, "stringData", std::move(string_data), a);
  if (spec_finalizers.IsArray()) set_member(ensure_object(out, "spec", a), "finalizers", std::move(spec_finalizers), a);
  if (hard.IsObject()) set_member(ensure_object(out, "spec", a), "hard", std::move(hard), a);
}

// SelfSubjectAccessReview (what `kubectl auth can-i` sends): spec.resourceAttributes or
// spec.nonResourceAttributes.
void decode_self_review(std::string_view raw, JsonDoc& out) {
  static const char* const kResourceFields[] = {"",        "namespace", "verb",        "group",
                                                "version", "resource",  "subresource", "name"};
  auto& a = out.GetAllocator();
  Reader r(raw);
  Field f;
  while (r.next(f)) {
    if (f.number == 1 && f.wire == 2) set_member(out, "metadata", object_meta(f.bytes, a), a);
    if (f.number != 2 || f.wire != 2) continue;
    Json& spec = ensure_object(out, "spec", a);
    Reader sr(f.bytes);
    Field sf;
    while (sr.next(sf)) {
      if (sf.wire != 2 || (sf.number != 1 && sf.number != 2)) continue;
      Json attrs(rapidjson::kObjectType);
      Reader ar(sf.bytes);
      Field af;
      while (ar.next(af)) {
        if (af.wire != 2) continue;
        if (sf.number == 1 && af.number >= 1 && af.number <= 7)
          set_member(attrs, kResourceFields[af.number], str(af.bytes, a), a);
        if (sf.number == 2 && (af.number == 1 || af.number == 2))
          set_member(attrs, af.number == 1 ? "path" : "verb", str(af.bytes, a), a);
      }
      set_member(spec, sf.number == 1 ? "resourceAttributes" : "nonResourceAttributes", std::move(attrs), a);
    }
  }
}

}  // namespace

JsonDoc decode_kubernetes_protobuf(std::string_view body) {
  if (body.size() < 4 || body.substr(0, 4) != std::string_view("k8s\0", 4)) throw unsupported("missing k8s envelope");
  Reader unknown(body.substr(4));
  Field f;
  std::string api_version, kind;
  std::string_view raw;
  while (unknown.next(f)) {
    if (f.number == 1) {
      Reader type_meta(f.bytes);
      Field tf;
      while (type_meta.next(tf)) {
        if (tf.number == 1) api_version = tf.bytes;
        if (tf.number == 2) kind = tf.bytes;
      }
    } else if (f.number == 2) {
      raw = f.bytes;
    }
  }
  static const char* const kSupported[] = {"Namespace", "ConfigMap", "Secret", "ServiceAccount", "ResourceQuota"};
  bool self_review = api_version == "authorization.k8s.io/v1" && kind == "SelfSubjectAccessReview";
  bool known = false;
  for (const char* k : kSupported) known = known || kind == k;
  if (!self_review && (api_version != "v1" || !known))
    throw unsupported("kind " + api_version + "/" + kind + " is not decoded by the test kit");
  JsonDoc out(rapidjson::kObjectType);
  set_string(out, "apiVersion", api_version, out.GetAllocator());
  set_string(out, "kind", kind, out.GetAllocator());
  if (self_review)
    decode_self_review(raw, out);
  else
    decode_object(kind, raw, out);
  return out;
}

}  // namespace dha::testing::apiserver
