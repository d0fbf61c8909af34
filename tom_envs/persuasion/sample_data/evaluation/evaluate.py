# tom-envs' bundled sample of an evaluation script in the layout of PersuasiveToM's
# evaluation/evaluate.py (github.com/Yu-Fangxu/PersuasiveToM). The sentences are ours, written for
# the tests of tom_envs.persuasion.prompts, which read this file as text and never run it.
letters = ["A", "B", "C", "D", "E", "F"]


def evaluate(args, client, problem):
  if args.cot == True:
    system_prompt = """Sample script: a persuader and a persuadee talk. Work through the question step by step."""
  else:
    system_prompt = f"Sample script: a persuader and a persuadee talk. Answer with a single letter {{A-F}}."
  dialogue = problem['dialogue']
  question = problem['question']
  choices = problem['choices']
  if args.cot == True:
    shot = """\n
    Close with "The answer is X" for the letter X you choose.
    """
    user_prompt = shot + "\nConversation so far:\n" + dialogue + "\nAsked:\n" + question + "\nPick one:"
  else:
    user_prompt = "\nConversation so far:\n" + dialogue + "\nAsked:\n" + question + "\nPick one:"
  for i, choice in enumerate(choices):
    user_prompt += f"\n({letters[i]}) {choice}"
  if args.cot == False:
    user_prompt += "\nLetter:"
  else:
    user_prompt += """\nLetter: step by step."""
  messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}]
  while True:
    reply = client(messages)
    if reply in letters:
      break
  return reply
