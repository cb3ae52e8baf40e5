/* A library with one function and nothing else: the native tests dlopen it to see the loader's
 * list change, and look for its code among the loaded objects. */
__attribute__((visibility("default"))) int jvmkit_fixture_empty(int x) { return x + 1; }
