// The describe contrast of a report: NttPlan::describe of the two leading
// backends on the evidence's own device, preset and level, so that a ranking
// question ("fewer launches but slower") can be read against launch shapes
// and resources. Only where that device is present: never made-up numbers.
#pragma once

#include <string>
#include <vector>

#include "recommend/report_inputs.h"

namespace fhelium {

struct DescribeContrast {
  bool available = false;
  std::string note;  // where it was described, or why it could not be
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

DescribeContrast describe_contrast(const LoadedEvidence& evidence, const std::vector<std::string>& backends);

}  // namespace fhelium
