#pragma once
// libmysofa: head-related transfer functions (SOFA files) for spatial audio.
#include <mysofa.h>
