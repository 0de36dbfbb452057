// StackMemo on its own, over a fake stack: a remembered walk is found only while every return
// address it was made of still lies where it was read from.
#include "callsite/stack_memo.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace vkleak {
namespace {

struct FakeStack {
  uintptr_t words[8] = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000, 0x7000, 0x8000};
  uintptr_t slot(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
};

TEST(StackMemo, FindsAStoredWalkWhileTheStackHoldsIt) {
  FakeStack st;
  StackMemo memo;
  const uintptr_t slots[] = {st.slot(0), st.slot(2), st.slot(5)};
  const uintptr_t rets[] = {st.words[0], st.words[2], st.words[5]};
  EXPECT_EQ(memo.find(st.slot(0), st.words[0], 8), 0u);
  memo.store(st.slot(0), st.words[0], 8, slots, rets, 3, 42);
  EXPECT_EQ(memo.find(st.slot(0), st.words[0], 8), 42u);
  // Words between the recorded slots are not part of the walk.
  st.words[1] = 0xdead;
  EXPECT_EQ(memo.find(st.slot(0), st.words[0], 8), 42u);
}

TEST(StackMemo, AnotherCallerAboveTheSameFrameMisses) {
  FakeStack st;
  StackMemo memo;
  const uintptr_t slots[] = {st.slot(0), st.slot(2), st.slot(5)};
  const uintptr_t rets[] = {st.words[0], st.words[2], st.words[5]};
  memo.store(st.slot(0), st.words[0], 8, slots, rets, 3, 42);
  st.words[5] = 0x6666;  // the outermost kept frame returns elsewhere now
  EXPECT_EQ(memo.find(st.slot(0), st.words[0], 8), 0u);
  st.words[5] = 0x6000;
  st.words[2] = 0x3333;
  EXPECT_EQ(memo.find(st.slot(0), st.words[0], 8), 0u);
}

TEST(StackMemo, KeyAndDepthMustMatch) {
  FakeStack st;
  StackMemo memo;
  const uintptr_t slots[] = {st.slot(0), st.slot(3)};
  const uintptr_t rets[] = {st.words[0], st.words[3]};
  memo.store(st.slot(0), st.words[0], 8, slots, rets, 2, 7);
  EXPECT_EQ(memo.find(st.slot(0), st.words[0], 4), 0u);      // another depth
  EXPECT_EQ(memo.find(st.slot(1), st.words[1], 8), 0u);      // another frame address
  EXPECT_EQ(memo.find(st.slot(0), st.words[0] + 1, 8), 0u);  // another return address
}

TEST(StackMemo, AWalkTooLongIsNotStored) {
  uintptr_t words[StackMemo::kFrames + 1];
  uintptr_t slots[StackMemo::kFrames + 1];
  for (uint32_t i = 0; i <= StackMemo::kFrames; ++i) {
    words[i] = 0x100 + i;
    slots[i] = reinterpret_cast<uintptr_t>(&words[i]);
  }
  StackMemo memo;
  memo.store(slots[0], words[0], 8, slots, words, StackMemo::kFrames + 1, 9);
  EXPECT_EQ(memo.find(slots[0], words[0], 8), 0u);
  memo.store(slots[0], words[0], 8, slots, words, StackMemo::kFrames, 9);
  EXPECT_EQ(memo.find(slots[0], words[0], 8), 9u);
}

}  // namespace
}  // namespace vkleak
