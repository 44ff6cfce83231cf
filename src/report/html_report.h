// One self-contained HTML file per report (strata profile/report/analyze/diff --html FILE): the
// page's styles and script (src/report/html/, embedded at build time) and the report's data as
// JSON, all inline; nothing is loaded from the network. The data comes from the same report-layer
// structures as the text views (their tables' cells, node figures, scope trees, diff estimates):
// the script only lays them out and draws them. docs/html-report.md describes the pages.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/analyze.h"
#include "ir/graph.h"
#include "profiler/profile.h"
#include "report/diff.h"

namespace strata::report {

// The data of each page ("kind": "profile", "analysis" or "diff").
nlohmann::json profile_page_data(const profiler::Profile& profile);
// `about`: what the command knows beside the analysis (model path, load time, warnings...).
nlohmann::json analysis_page_data(const ir::Graph& graph, const analyzer::Analysis& a,
                                  const nlohmann::json& about);
nlohmann::json diff_page_data(const ProfileDiff& diff, const std::string& label_a,
                              const std::string& label_b);

// The page: `data` inline beside the embedded styles and script.
std::string html_page(const std::string& title, const nlohmann::json& data);

// Writes the page to `path` atomically; fails (exit 2) naming the path when it cannot.
void write_html(const std::string& path, const std::string& title, const nlohmann::json& data);

}  // namespace strata::report
