// `fhelium report EVIDENCE.json... --output DIR [--emit-policy FILE]
// [--archive] [--no-describe] [--profile PROFILE.json]...`: a deployment
// report (report.html, report.md) from evidence files and optional profile
// files, optionally the policy file and the evidence archive.
// Every input is read and every output path checked before anything is
// written; each file is then written atomically.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "fhe/core/error.h"
#include "recommend/atomic_file.h"
#include "recommend/cli/commands.h"
#include "recommend/provenance.h"
#include "recommend/report_archive.h"
#include "recommend/report_builder.h"
#include "recommend/report_policy.h"

namespace fhelium::cli {
namespace {

struct ReportCommandOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string policy;
  bool archive = false;
  bool no_describe = false;
  std::vector<std::string> profiles;
};

// The output directory: an existing, writable one, or one whose parent
// exists and is writable (the report creates DIR itself, never a chain).
void check_output_dir(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::exists(dir, error)) {
    check_output_path(dir);
    return;
  }
  if (!std::filesystem::is_directory(dir, error))
    throw fhe::InvalidArgument("output " + dir.string() + " is not a directory");
  check_output_path(dir / "report.html");
}

// The policy file may lie in the output directory that the report is about
// to create (`--output report --emit-policy report/policy.json`).
void check_policy_path(const std::filesystem::path& policy, const std::filesystem::path& dir) {
  if (!policy.has_filename()) throw fhe::InvalidArgument("policy path " + policy.string() + " names a directory");
  std::error_code error;
  if (!std::filesystem::exists(dir, error)) {
    std::error_code parent_error, dir_error;
    const auto parent = std::filesystem::weakly_canonical(
        policy.has_parent_path() ? policy.parent_path() : std::filesystem::path("."), parent_error);
    const auto created = std::filesystem::weakly_canonical(dir, dir_error);
    if (!parent_error && !dir_error && parent == created) return;  // check_output_dir answered for it
  }
  check_output_path(policy);
}

std::filesystem::path canonical_path(const std::filesystem::path& path) {
  std::error_code error;
  const auto canonical = std::filesystem::weakly_canonical(path, error);
  return error ? path.lexically_normal() : canonical;
}

// No input given twice (it would be two columns of one run), and no output
// over an input or over another output: the policy file must not replace
// an evidence or profile file, the report's own files or its archive.
void check_distinct_paths(const ReportCommandOptions& options, const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> inputs;
  for (const auto& list : {options.inputs, options.profiles}) {
    for (const auto& input : list) {
      const auto path = canonical_path(input);
      if (std::find(inputs.begin(), inputs.end(), path) != inputs.end())
        throw fhe::InvalidArgument("input " + input + " is given twice");
      inputs.push_back(path);
    }
  }
  if (options.policy.empty()) return;
  const auto policy = canonical_path(options.policy);
  const auto out = canonical_path(dir);
  const bool report_file = policy == out / "report.md" || policy == out / "report.html" ||
                           (options.archive && (policy == out / "manifest.json" ||
                                                policy.parent_path() == out / "evidence"));
  if (report_file || std::find(inputs.begin(), inputs.end(), policy) != inputs.end())
    throw fhe::InvalidArgument("policy path " + options.policy +
                               " would replace an input or one of the report's files");
}

void create_output_dir(const std::filesystem::path& dir) {
  std::error_code error;
  if (std::filesystem::exists(dir, error)) return;
  std::filesystem::create_directory(dir, error);
  if (error) throw fhe::InvalidArgument("cannot create output directory " + dir.string() + ": " + error.message());
}

void run_report(const ReportCommandOptions& options, const std::vector<std::string>& argv) {
  std::vector<std::filesystem::path> paths(options.inputs.begin(), options.inputs.end());
  const std::vector<LoadedEvidence> inputs = load_evidence_files(paths);
  std::vector<LoadedProfile> profiles =
      load_profile_files(std::vector<std::filesystem::path>(options.profiles.begin(), options.profiles.end()));
  const std::filesystem::path dir = options.output;
  check_distinct_paths(options, dir);
  check_output_dir(dir);
  if (!options.policy.empty()) check_policy_path(options.policy, dir);

  std::string command;
  for (const auto& arg : argv) command += (command.empty() ? "" : " ") + arg;
  const std::string now = utc_now_iso8601();
  const ReportModel model = build_model(inputs, options.archive);
  const std::vector<ArchivedInput> archived = archived_inputs(inputs, profiles);
  const ReportDocument document = build_report(model, {command, now, !options.no_describe, std::move(profiles)});
  const std::string markdown = render_markdown(document);
  const std::string html = render_html(document);
  const nlohmann::json policy = policy_json(model.contexts, model.decisions, now);
  const nlohmann::json manifest = archive_manifest(archived, command, now);

  create_output_dir(dir);  // only now: a failure above leaves nothing behind
  write_file_atomically(dir / "report.md", [&](std::ostream& out) { out << markdown; });
  write_file_atomically(dir / "report.html", [&](std::ostream& out) { out << html; });
  if (!options.policy.empty())
    write_file_atomically(options.policy, [&](std::ostream& out) { out << policy.dump(2) << '\n'; });
  if (options.archive) {
    write_archive(dir, archived, manifest);
  } else if (remove_stale_archive(dir, {}) > 0) {
    std::cout << "removed an earlier report's archive from " << dir.string() << '\n';
  }

  for (std::size_t i = 0; i < model.contexts.size(); ++i)
    std::cout << model.contexts[i].gpu_name << ", " << model.contexts[i].preset << ": "
              << model.decisions[i].backend << " (confidence " << model.decisions[i].confidence << ")\n"
              << "  " << model.decisions[i].apply << '\n';
  if (!model.differences.empty())
    std::cout << "warning: the inputs differ in provenance (see the report)\n";
  std::cout << "report: " << (dir / "report.html").string() << ", " << (dir / "report.md").string() << '\n';
  if (!options.policy.empty()) std::cout << "policy: " << options.policy << '\n';
  if (options.archive) std::cout << "archive: " << (dir / "manifest.json").string() << '\n';
}

}  // namespace

void add_report_command(CLI::App& app, const std::vector<std::string>& argv) {
  auto* command = app.add_subcommand("report", "Deployment report (HTML, Markdown) from evidence files");
  auto options = std::make_shared<ReportCommandOptions>();
  command->add_option("evidence", options->inputs, "Evidence JSON files (kernel, ckks-primitive, application)")
      ->required();
  command->add_option("--output", options->output, "Directory for report.html and report.md")->required();
  command->add_option("--emit-policy", options->policy, "Write the decision as a policy file (JSON)");
  command->add_flag("--archive", options->archive, "Copy the evidence and a manifest into the output directory");
  command->add_flag("--no-describe", options->no_describe, "Skip the NttPlan::describe contrast");
  command->add_option("--profile", options->profiles,
                      "Profile JSON of `fhelium benchmark profile ntt` to show beside the describe contrast "
                      "(repeatable)");
  command->callback([options, argv] { run_report(*options, argv); });
}

}  // namespace fhelium::cli
