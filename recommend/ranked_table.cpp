// Ranked table and recommendation summary.
#include "recommend/ranked_table.h"

#include "recommend/evidence.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

std::string number(const nlohmann::json& value, int decimals) {
  return value.is_number() ? format_number(value.get<double>(), decimals) : "n/a";
}

std::string interval(const nlohmann::json& value, int decimals) {
  if (!value.is_array() || value.size() != 2) return "n/a";
  return "[" + number(value[0], decimals) + ", " + number(value[1], decimals) + "]";
}

std::string joined(const nlohmann::json& list) {
  std::string text;
  for (const auto& item : list) text += (text.empty() ? "" : ", ") + item.get<std::string>();
  return text;
}

}  // namespace

void print_ranked_table(std::ostream& out, const nlohmann::json& document) {
  const nlohmann::json& metadata = document.at("metadata");
  out << "suite " << metadata.value("suite", "?") << ", preset " << metadata.value("preset", "?")
      << ", device " << metadata.value("device", "?");
  if (metadata.contains("runs"))
    out << ", warmup " << metadata.value("warmup", 0) << ", runs " << metadata["runs"]
        << ", repetitions " << metadata.value("repetitions", 0);
  out << "\n";

  const std::vector<std::string> ops = metadata.value("operations", std::vector<std::string>{});
  const int repetitions = document.contains("analysis") ? document["analysis"].value("repetitions", 0) : 0;
  std::vector<std::string> header = {"rank", "backend", "score", "gap %", "wins", "CV %", "score 95% CI"};
  for (const std::string& op : ops) header.push_back(op + " ms");
  TextTable table(header);
  for (const auto& row : document.value("rows", nlohmann::json::array())) {
    std::vector<std::string> cells = {std::to_string(row.value("rank", 0)),
                                      row.value("backend", "?"),
                                      number(row["score"], 4),
                                      number(row["gap_pct"], 2),
                                      std::to_string(row.value("wins", 0)) + "/" + std::to_string(repetitions),
                                      number(row["cv_pct"], 2),
                                      interval(row.value("score_ci95", nlohmann::json()), 4)};
    for (const std::string& op : ops)
      cells.push_back(row.contains("median_ms") ? number(row["median_ms"].value(op, nlohmann::json()), 4) : "");
    table.add_row(cells);
  }
  table.print(out);

  for (const auto& record : document.value("correctness", nlohmann::json::array())) {
    if (record.value("passed", true)) continue;
    out << "correctness FAILURE: " << record.value("backend", "?") << ": " << record.value("summary", "")
        << " (excluded from ranking";
    if (record.contains("failing_input_file")) out << "; input saved to " << record["failing_input_file"].get<std::string>();
    out << ")\n";
  }
  for (const auto& rejected : metadata.value("rejected_backends", nlohmann::json::array()))
    out << "rejected: " << rejected.value("backend", "?") << ": " << rejected.value("reason", "") << "\n";

  const nlohmann::json& r = document.value("recommendation", nlohmann::json());
  if (!r.is_object()) {
    out << "no recommendation: no backend passed the correctness gate\n";
    return;
  }
  out << "recommended: " << r.value("recommended_backend", "?") << " (confidence "
      << r.value("confidence", "?") << ", policy " << r.value("policy", "?");
  if (r.value("documented_confidence", "") != r.value("confidence", ""))
    out << "; documented rules alone: " << r.value("documented_confidence", "?");
  out << ")\n";
  out << "numerical winner: " << r.value("numerical_winner", "?");
  if (r["runner_up"].is_string())
    out << "; runner-up " << r["runner_up"].get<std::string>() << ", margin "
        << number(r["runner_up_margin_pct"], 2) << "% (bootstrap 95% CI "
        << interval(r["margin_ci95_pct"], 2) << " %)";
  out << "\n";
  out << "near-tied: " << joined(r.value("near_tied_backends", nlohmann::json::array()))
      << "; repetition winners: " << joined(r.value("repetition_winners", nlohmann::json::array()))
      << "; winner's median CV " << number(r["winner_median_cv_pct"], 2) << "%\n";
  out << "reasons: " << joined(r.value("reason_codes", nlohmann::json::array())) << "\n";
  for (const auto& reason : r.value("reasons", nlohmann::json::array()))
    out << "  - " << reason.get<std::string>() << "\n";
  out << "apply: " << r.value("apply", "") << "\n";
  if (const std::string warning = test_only_preset_warning(document); !warning.empty())
    out << "warning: " << warning << "\n";
}

}  // namespace fhelium
