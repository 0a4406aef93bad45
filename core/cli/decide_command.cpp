#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "dha/decide/decide.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"
#include "exit.hpp"

// `db-autoscaler decide`: one JSON document in (file or stdin), one JSON decision out. A public,
// stable interface; docs/decide.md describes every field.
namespace dha::cli {
namespace {

std::string read_input(const std::string& path) {
  if (path.empty() || path == "-") {
    if (isatty(STDIN_FILENO)) throw Exit(kExitBadInput, "decide: no input (give a file, or pipe JSON on stdin)");
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Exit(kExitBadInput, "decide: cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string run_decide(const std::string& text, bool pretty) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseNanAndInfFlag>(text.c_str(), text.size());
  if (doc.HasParseError())
    throw Exit(kExitBadInput, "input: not valid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                                  rapidjson::GetParseError_En(doc.GetParseError()));
  try {
    model::json::require_object(doc, "input");
    const auto* now = model::json::find(doc, "now");
    if (now == nullptr) throw model::InputError("now", "required");
    const std::int64_t t = model::json::to_integer(*now, "now", 0, INT64_C(253402300799));  // up to year 9999
    const auto* spec_json = model::json::find(doc, "spec");
    if (spec_json == nullptr) throw model::InputError("spec", "required");
    const auto spec = model::parse_spec(*spec_json, model::SpecParseOptions{.require_target_ref = false});
    const auto* obs_json = model::json::find(doc, "observation");
    if (obs_json == nullptr) throw model::InputError("observation", "required");
    const auto obs = model::parse_observation(*obs_json);
    model::DecisionState state;
    if (const auto* s = model::json::find(doc, "state")) state = model::parse_decision_state(*s);

    const decide::Decision decision = decide::decide(spec, obs, state, t);
    rapidjson::Document out;
    static_cast<rapidjson::Value&>(out) = decide::decision_to_json(decision, out.GetAllocator());
    rapidjson::StringBuffer buf;
    if (pretty) {
      rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
      w.SetIndent(' ', 2);
      out.Accept(w);
    } else {
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      out.Accept(w);
    }
    return std::string(buf.GetString(), buf.GetSize());
  } catch (const model::InputError& e) {
    throw Exit(kExitBadInput, e.what());
  }
}

}  // namespace

void add_decide_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("decide",
                                 "Compute one scaling decision: read {now, spec, observation, state} JSON from FILE "
                                 "or stdin, print the decision JSON");
  auto file = std::make_shared<std::string>();
  auto pretty = std::make_shared<bool>(false);
  cmd->add_option("file", *file, "input JSON document ('-' or none: stdin)");
  cmd->add_flag("--pretty", *pretty, "indent the output");
  cmd->callback([file, pretty] { std::cout << run_decide(read_input(*file), *pretty) << "\n"; });
}

}  // namespace dha::cli
