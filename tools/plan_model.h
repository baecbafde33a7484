#pragma once

/// `ballast plan --model FILE.json [--complete] [--assignment-out FILE]`:
/// the planner on a cluster described in JSON (tools/driver/model_file.h),
/// one round as a live round would plan it, or round after round until
/// nothing is left, with balance before and after and what was moved; or,
/// with `--score-assignment`, those totals for another balancer's answer.

#include <string>
#include <vector>

#include "tools/cli_common.h"

namespace ballast::tools {

struct ModelPlanOptions {
    std::string model_path;
    bool complete = false;
    std::string assignment_out;
    /// Plans nothing: judges this final assignment (another balancer's, in
    /// kafka-reassign-partitions' JSON) with the same totals instead.
    std::string score_assignment;
};

int run_model_plan(const Context& ctx, const ModelPlanOptions& options, const std::vector<std::string>& overrides,
                   bool json);

}  // namespace ballast::tools
