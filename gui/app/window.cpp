#include "gui/app/window.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gui/app/viewer.h"

namespace bubblescope::gui {
namespace {

std::string g_glfwError;  // the last GLFW error, for the message when no window opens
uint64_t g_events = 0;    // counted by callbacks ImGui's backend chains to

void countEvent() {
  ++g_events;
}
void installEventCounters(GLFWwindow* w) {
  glfwSetCursorPosCallback(w, [](GLFWwindow*, double, double) { countEvent(); });
  glfwSetMouseButtonCallback(w, [](GLFWwindow*, int, int, int) { countEvent(); });
  glfwSetScrollCallback(w, [](GLFWwindow*, double, double) { countEvent(); });
  glfwSetKeyCallback(w, [](GLFWwindow*, int, int, int, int) { countEvent(); });
  glfwSetCharCallback(w, [](GLFWwindow*, unsigned int) { countEvent(); });
  glfwSetWindowFocusCallback(w, [](GLFWwindow*, int) { countEvent(); });
  glfwSetCursorEnterCallback(w, [](GLFWwindow*, int) { countEvent(); });
  glfwSetFramebufferSizeCallback(w, [](GLFWwindow*, int, int) { countEvent(); });
  glfwSetWindowRefreshCallback(w, [](GLFWwindow*) { countEvent(); });
}

void onGlfwError(int, const char* description) {
  g_glfwError = description ? description : "";
}

[[noreturn]] void noDisplay(const std::string& why) {
  throw NoDisplayError(
      "view: cannot open a window: " + why +
      "; render a frame with --screenshot FILE.png under xvfb-run (xvfb-run -a bubblescope view "
      "RUN --screenshot out.png), or read the analysis with bubblescope analyze RUN");
}

// Every ImGui triangle samples the font texture (solid shapes sample its white texel). Text is
// drawn at whole pixels and one texel per pixel, so nearest sampling gives the same pixels as
// bilinear; on Mesa's software rasteriser (llvmpipe) it compiles to a fetch instead of four and
// a blend, which took 15-25% off a whole-run frame. Lines baked into the texture need bilinear
// filtering, so ImGui draws its anti-aliased lines as geometry instead.
void sampleFontTextureNearest() {
  ImGui_ImplOpenGL3_CreateDeviceObjects();  // makes the font texture now, not at the first frame
  const auto texture = static_cast<GLuint>(reinterpret_cast<intptr_t>(ImGui::GetIO().Fonts->TexID));
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  ImGui::GetStyle().AntiAliasedLinesUseTex = false;
}

void applyStyle() {
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 0;
  s.FrameRounding = 2;
  s.WindowBorderSize = 0;
  s.WindowPadding = {8, 6};
  s.FramePadding = {6, 3};
  s.ItemSpacing = {6, 4};
  s.ScrollbarSize = 12;
  s.Colors[ImGuiCol_WindowBg] = ImVec4(0.118f, 0.129f, 0.149f, 1.0f);
  s.Colors[ImGuiCol_ChildBg] = ImVec4(0.118f, 0.129f, 0.149f, 1.0f);
}

}  // namespace

void requireDisplay() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!x11 || !*x11) && (!wayland || !*wayland)) {
    noDisplay("no display (DISPLAY and WAYLAND_DISPLAY are not set)");
  }
}

Window::Window(int width, int height, const std::string& title, bool visible, bool vsync) {
  requireDisplay();
  const char* x11 = std::getenv("DISPLAY");
  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit()) {
    noDisplay("GLFW could not connect to the display" +
              (x11 ? " '" + std::string(x11) + "'" : std::string()) +
              (g_glfwError.empty() ? "" : " (" + g_glfwError + ")"));
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 2);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string error = g_glfwError;
    glfwTerminate();
    noDisplay("no OpenGL 3.2 context" + (error.empty() ? "" : " (" + error + ")"));
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(vsync ? 1 : 0);
  installEventCounters(window_);  // before ImGui's backend, which chains to them

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini left in the user's directory
  io.LogFilename = nullptr;
  applyStyle();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 150");
  sampleFontTextureNearest();
}

Window::~Window() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::shouldClose() const {
  return glfwWindowShouldClose(window_);
}

void Window::waitEvents(double timeout) {
  if (timeout > 0) {
    glfwWaitEventsTimeout(timeout);
  } else {
    glfwPollEvents();
  }
}

void Window::beginFrame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void Window::render() {
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  glViewport(0, 0, w, h);
  glClearColor(0.118f, 0.129f, 0.149f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() {
  glfwSwapBuffers(window_);
}

void Window::finish() {
  glFinish();
}

Pixels Window::readPixels() const {
  Pixels p;
  glfwGetFramebufferSize(window_, &p.width, &p.height);
  p.rgba.resize(static_cast<size_t>(p.width) * static_cast<size_t>(p.height) * 4);
  std::vector<uint8_t> raw(p.rgba.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, p.width, p.height, GL_RGBA, GL_UNSIGNED_BYTE, raw.data());
  const size_t row = static_cast<size_t>(p.width) * 4;
  for (int y = 0; y < p.height; ++y) {  // GL's rows run bottom to top
    std::memcpy(&p.rgba[static_cast<size_t>(y) * row],
                &raw[static_cast<size_t>(p.height - 1 - y) * row], row);
  }
  return p;
}

uint64_t Window::events() const {
  return g_events;
}

int Window::width() const {
  int w = 0, h = 0;
  glfwGetWindowSize(window_, &w, &h);
  return w;
}

int Window::height() const {
  int w = 0, h = 0;
  glfwGetWindowSize(window_, &w, &h);
  return h;
}

std::string Window::glVersion() const {
  const auto* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const auto* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return std::string(v ? v : "?") + " | " + (r ? r : "?");
}

}  // namespace bubblescope::gui
