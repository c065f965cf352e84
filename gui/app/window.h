#pragma once
// The platform edge: a GLFW window with an OpenGL 3.2 core context (ImGui's OpenGL3 backend with
// "#version 150", which draws more than 64k vertices per window), ImGui set up over it, frames
// begun and presented, and the framebuffer read back for screenshots.
#include <cstdint>
#include <string>
#include <vector>

struct GLFWwindow;

namespace bubblescope::gui {

struct Pixels {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // rows top to bottom
};

// Throws NoDisplayError when neither DISPLAY nor WAYLAND_DISPLAY is set: checked before a long
// load, so the user hears at once that no window can open.
void requireDisplay();

class Window {
 public:
  // Throws NoDisplayError (with what to do instead) when no window can be opened.
  Window(int width, int height, const std::string& title, bool visible, bool vsync);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  bool shouldClose() const;
  // Waits for input up to `timeout` seconds (0: just polls).
  void waitEvents(double timeout);
  void beginFrame();
  // Renders ImGui's frame into the back buffer.
  void render();
  void present();
  // Waits until the frame is drawn (by Mesa's rasteriser too): the benchmark times whole frames.
  void finish();
  // The back buffer as rendered (call between render() and present()).
  Pixels readPixels() const;
  int width() const;
  int height() const;
  std::string glVersion() const;
  // Input and window events so far: the loop redraws only when this changes (or while animating).
  uint64_t events() const;

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace bubblescope::gui
