// Boost.PFR takes apart at most 100 fields; past that, 2,769 lines of g++ output and no
// layout: message.
// expected-error: layout: the element type has more than 100 fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    float f0; float f1; float f2; float f3; float f4; float f5; float f6; float f7; float f8; float f9; float f10; float f11; float f12; float f13; float f14; float f15; float f16; float f17; float f18; float f19; float f20; float f21; float f22; float f23; float f24; float f25; float f26; float f27; float f28; float f29; float f30; float f31; float f32; float f33; float f34; float f35; float f36; float f37; float f38; float f39; float f40; float f41; float f42; float f43; float f44; float f45; float f46; float f47; float f48; float f49; float f50; float f51; float f52; float f53; float f54; float f55; float f56; float f57; float f58; float f59; float f60; float f61; float f62; float f63; float f64; float f65; float f66; float f67; float f68; float f69; float f70; float f71; float f72; float f73; float f74; float f75; float f76; float f77; float f78; float f79; float f80; float f81; float f82; float f83; float f84; float f85; float f86; float f87; float f88; float f89; float f90; float f91; float f92; float f93; float f94; float f95; float f96; float f97; float f98; float f99; float f100;
};

layout::view<S, layout::policy::soa> v;
