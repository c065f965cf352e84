#pragma once
// `bubblescope view --attach`: the viewer's feed of a running job (gui/app/live_feed.h) from its
// memory windows (live_window.h): every poll that finished steps becomes the window to show,
// bounded to the newest steps its agents still hold whole (shown_steps.h).
#include <optional>

#include "analyzer/analyze.h"
#include "cli/attach_session.h"
#include "gui/app/live_feed.h"

namespace bubblescope::cli {

// The feed of the processes of `targets`, or nothing when there is nothing to attach to (said on
// stderr, a line each). Nothing is asked of the agents but their status until start(). Throws
// UsageError for processes of several runs.
std::optional<gui::LiveFeed> attachFeed(const TargetArgs& targets, double keepSeconds,
                                        const analysis::AnalyzeOptions& base);

}  // namespace bubblescope::cli
