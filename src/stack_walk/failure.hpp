// Brings the public failure/reject enums into the implementation.
#pragma once

#include <jvmkit/stack_walk.h>
