/* Compiled as strict C99 (-std=c99 -pedantic) into the unit tests: the public header must stay
 * valid C for the GNU Classpath code it replaces. Old-style include, as Classpath code wrote it. */
#include "native_state.h"

/* Every declaration has the spec's type: assigning to pointers of the exact type checks them. */
int native_state_header_compiles_as_c99(void) {
  struct state_table* (*init)(JNIEnv*, jclass) = init_state_table;
  struct state_table* (*init_size)(JNIEnv*, jclass, jint) = init_state_table_with_size;
  jint (*set)(JNIEnv*, jobject, struct state_table*, void*) = set_state;
  void* (*get)(JNIEnv*, jobject, struct state_table*) = get_state;
  void* (*rm)(JNIEnv*, jobject, struct state_table*) = remove_state_slot;
  void (*set_oid)(JNIEnv*, jobject, struct state_table*, jint, void*) = set_state_oid;
  void* (*get_oid)(JNIEnv*, jobject, struct state_table*, jint) = get_state_oid;
  void* (*rm_oid)(JNIEnv*, jobject, struct state_table*, jint) = remove_state_oid;
  return init != 0 && init_size != 0 && set != 0 && get != 0 && rm != 0 && set_oid != 0 && get_oid != 0 && rm_oid != 0;
}
