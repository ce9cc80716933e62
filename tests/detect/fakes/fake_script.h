/* Answers of the fake NVML / CUDA libraries: `key value` lines in the file named by an
   environment variable, re-read on every call so one loaded library serves every test. */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fake_get(const char* variable, const char* key, long fallback) {
  const char* path = getenv(variable);
  if (path == NULL) return fallback;
  FILE* file = fopen(path, "r");
  if (file == NULL) return fallback;
  char line[256];
  long value = fallback;
  size_t length = strlen(key);
  while (fgets(line, sizeof line, file) != NULL) {
    if (strncmp(line, key, length) == 0 && line[length] == ' ') value = strtol(line + length + 1, NULL, 10);
  }
  fclose(file);
  return value;
}

static void fake_log(const char* variable, const char* what) {
  const char* path = getenv(variable);
  if (path == NULL) return;
  FILE* file = fopen(path, "a");
  if (file == NULL) return;
  fprintf(file, "%s\n", what);
  fclose(file);
}
