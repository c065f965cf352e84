#pragma once
// Keyboard reads in one place: ImGui 1.86 keeps native GLFW key codes in io.KeysDown (the
// ImGuiKey API arrived in 1.87), so an upgrade touches only this file.
#include <GLFW/glfw3.h>
#include <imgui.h>

namespace bubblescope::gui::keys {

inline bool down(int glfwKey) {
  return ImGui::IsKeyDown(glfwKey);
}
inline bool pressed(int glfwKey, bool repeat = true) {
  return ImGui::IsKeyPressed(glfwKey, repeat);
}
// Keys are the timeline's unless a text field has them.
inline bool forTimeline() {
  return !ImGui::GetIO().WantTextInput;
}

}  // namespace bubblescope::gui::keys
