// A stand-in for the driver's libnvidia-ml.so.1, so that machine::Nvml's loading, lookups and
// readings run on a machine without a GPU (tests/unit/machine/test_device_state.cpp). Its
// functions have NVML's C signatures (nvml.h; enums as int, a device as a pointer) and answer
// from the environment: FAKE_NVML_INIT (the return code of nvmlInit_v2), FAKE_NVML_SM_MHZ,
// FAKE_NVML_REASONS, FAKE_NVML_LOCK (the return code of nvmlDeviceSetGpuLockedClocks). The bus
// id "00000000:3B:00.0" is its one device; FAKE_NVML_LOG names a file each lock and reset is
// appended to.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int env_int(const char* name, int otherwise) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : otherwise;
}

int device_tag = 0;

void log_line(const char* what, unsigned a, unsigned b) {
  if (const char* path = std::getenv("FAKE_NVML_LOG")) {
    if (FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s %u %u\n", what, a, b);
      std::fclose(f);
    }
  }
}

} // namespace

extern "C" {

struct Temperature {
  unsigned int version;
  int sensor;
  int temperature;
};

int nvmlInit_v2() {
  return env_int("FAKE_NVML_INIT", 0);
}
int nvmlShutdown() {
  return 0;
}
const char* nvmlErrorString(int code) {
  return code == 4 ? "Insufficient Permissions" : "Unknown Error";
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (std::strcmp(bus_id, "00000000:3B:00.0") != 0)
    return 6; // NVML_ERROR_NOT_FOUND
  *device = &device_tag;
  return 0;
}
int nvmlDeviceGetClockInfo(void*, int type, unsigned int* mhz) {
  *mhz = type == 1 ? static_cast<unsigned>(env_int("FAKE_NVML_SM_MHZ", 1980)) : 2619u;
  return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void*, unsigned long long* reasons) {
  *reasons = static_cast<unsigned long long>(env_int("FAKE_NVML_REASONS", 0));
  return 0;
}
int nvmlDeviceGetTemperatureV(void*, Temperature* t) {
  t->temperature = 47;
  return 0;
}
int nvmlDeviceGetPowerUsage(void*, unsigned int*) {
  return 3; // NVML_ERROR_NOT_SUPPORTED: the reading says NaN
}
int nvmlDeviceSetGpuLockedClocks(void*, unsigned int low, unsigned int high) {
  const int code = env_int("FAKE_NVML_LOCK", 0);
  if (code == 0)
    log_line("lock", low, high);
  return code;
}
int nvmlDeviceResetGpuLockedClocks(void*) {
  log_line("reset", 0, 0);
  return 0;
}
}
