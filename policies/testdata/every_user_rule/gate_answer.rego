# A user policy that objects to everything: the built-in bundle's tests
# must pass beside it (they decide with no user policy).
package loopx.user.gate_answer

deny contains {"code": "user_denies_everything", "message": "a user policy denies every gate_answer"}

warn contains "a user policy warns on every gate_answer"
