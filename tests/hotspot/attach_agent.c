/* A test agent for attach: Agent_OnAttach writes its options to the file named after "file=" and
 * returns the number after "rc=" (default 0). */
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void* reserved) {
  (void)vm;
  (void)reserved;
  const char* text = options != NULL ? options : "";
  const char* file = strstr(text, "file=");
  if (file != NULL) {
    char path[512];
    size_t n = strcspn(file + 5, ",");
    if (n >= sizeof(path)) n = sizeof(path) - 1;
    memcpy(path, file + 5, n);
    path[n] = '\0';
    FILE* out = fopen(path, "w");
    if (out != NULL) {
      fprintf(out, "attached: %s\n", text);
      fclose(out);
    }
  }
  const char* rc = strstr(text, "rc=");
  return rc != NULL ? (jint)atoi(rc + 3) : 0;
}
