"""Hand-written lines and pieces that are no pitch: plain lines, negations, hostility, teasing and the words
that fill the slots of :mod:`benchmarks.persuasion.reader_v3_corpus` (the v3 reader's training set).

Blocks of ``<concern> | <text>`` lines (``-``: no concern) or plain word lists, one a line.
"""

from __future__ import annotations

#: lines that invoke no principle: small talk, listening, questions, requests without a reason, concerns
NOTHING = """
- | How was your weekend?
- | Did you catch the game on Saturday?
- | That sounds really hard, I'm sorry.
- | Go on, I'm listening.
- | What would you need to hear to say yes?
- | Let me know what you think.
- | I'd really like you to come.
- | Please think about it.
- | Will you sign up?
- | So, are you in?
- | I really think you should register to vote.
- | Let's go for a run tomorrow.
- | Could you give it some thought?
- | What's holding you back?
- | How are the kids doing?
- | I understand, it's a big decision.
- | Fair enough, tell me more.
- | It's a Tuesday evening class at the library.
- | The form is on the table.
- | Shall we talk about it over coffee?
- | Hmm, I see what you mean.
- | I want you to join the choir.
- | Think it over and get back to me.
- | Right, so the plan is to meet at eight.
- | Do you want milk in your tea?
- | No pressure at all.
- | OK.
- | Sure.
- | Hello there!
- | Thanks for hearing me out.
- | What do you make of it?
- | Would you come to the food bank with me?
- | The meeting starts at seven in the church hall.
- | It's a ten-week course in basic Italian.
- | Have you had lunch yet?
- | I get why you're hesitant.
- | That's totally understandable.
- | Take all the time you need.
- | Do it.
- | Just try it.
- | Please vote.
- | Come along.
- | You should get the check-up.
- | The gym is on the corner of Mill Street.
- | What are you doing this weekend?
- | My train was late again this morning.
- | Is there anything you'd like to ask?
- | I'm asking you to donate.
- | It's up to you, really.
- | I'd love an answer by the end of the day if you can.
- | Have you ever tried yoga?
- | The course covers algebra and statistics.
- | Can I tell you about the recycling scheme?
- | Let's sort it out together, then.
- | Well, what do you say?
- | Hope you're feeling better.
- | What did the doctor say about your knee?
- | Where do you usually buy your groceries?
- | I'm just asking you to consider it.
- | The polling station is the primary school.
- | Any questions so far?
cost | Is money the main worry?
cost | It's forty pounds for the whole year.
cost | How much were you hoping to spend?
cost | The membership fee is paid monthly.
cost | You'd get your money's worth.
cost | It's cheaper than a takeaway a week.
cost | What would make the price feel fair to you?
cost | There's no charge for the first visit.
cost | It pays for itself within a year.
cost | Does the cost put you off?
timing | Why not start this week?
timing | Is now a bad time for you?
timing | Would next month suit you better?
timing | Why wait until January?
timing | There's no better time than today.
timing | When would be a good time to start?
timing | The sooner you start, the sooner you'll feel the difference.
timing | Do you want to wait until the kids are back at school?
timing | You could begin tomorrow morning.
timing | Is it the timing that's bothering you?
fit | Do you feel it's not really your scene?
fit | It's aimed at complete beginners.
fit | Is it not quite your sort of thing?
fit | It's suitable for all ages and abilities.
fit | Do you think it's for younger people?
fit | It's designed for people who work full time.
fit | Would it suit your lifestyle?
fit | It's perfect for someone who likes the outdoors.
fit | Do you worry you wouldn't fit in?
fit | There's a slower group for people starting out.
doubt | Are you not sure it'll make a difference?
doubt | It really does help, honestly.
doubt | Do you doubt it's worth it?
doubt | I promise the results are real.
doubt | What would convince you it works?
doubt | It actually makes a big difference.
doubt | Are you sceptical about it?
doubt | It's not a gimmick.
doubt | Do you think it's a waste of time?
doubt | You'll see the benefits quickly.
effort | It only takes ten minutes.
effort | It's really easy to sign up.
effort | Is it the time commitment that worries you?
effort | You just click one button.
effort | It's one form and you're done.
effort | Would it help if we kept it short?
effort | You can do it from your phone.
effort | There's nothing to prepare.
effort | Do you think it'd be too much work?
effort | It's a small step, nothing more.
"""

#: negated or denied principles, in many forms: a line whose only principle is denied reads as nothing
NEGATED = """
- | I'm not going to pretend the experts are behind it.
- | No doctor has ever told me to do this.
- | Hardly anyone has signed up so far.
- | There's no rush, there are plenty of places.
- | I'm not saying you owe me anything.
- | It's not as if everyone else is doing it.
- | Forget the studies; what do you want?
- | I won't flatter you to get a yes.
- | Never mind what your friends are doing.
- | You didn't promise anything, and that's fine.
- | It's not a limited offer or anything.
- | No scientist has looked at it, as far as I know.
- | Don't do it just because I helped you.
- | Not many of your colleagues have joined, honestly.
- | I'm not claiming it's popular.
- | Nobody's saying you have to be consistent with last year.
- | It isn't about what the doctors think.
- | I'm not doing this as a favour to get one back.
- | Tickets aren't scarce at all.
- | Ignore what the professionals say for a moment.
- | The experts haven't said anything about it.
- | There's no evidence either way.
- | I'm not asking because we're friends.
- | You never said you wanted this, I know.
- | It doesn't matter what the neighbours do.
- | I won't say it's a once-in-a-lifetime deal.
- | It's not like I did you a favour.
- | Nobody's recommending it officially.
- | I'm not trying to butter you up.
- | It won't sell out, so take your time.
- | Not that the research says much.
- | I haven't heard anyone else talk about it.
- | Don't worry about what you said before.
- | There's no deadline.
- | I won't pretend I'm an expert.
- | It's not true that everyone goes.
- | Nobody's counting favours here.
- | I'm not going to tell you experts love it.
- | You don't have to live up to anything you said.
- | Leave the science out of it.
"""

#: hostile lines written whole: insults in words no list holds, sarcasm, contempt, veiled threats, coercion
HOSTILE = """
Are you really this slow, or is it an act?
Wow, another brilliant excuse from the master of excuses.
Do you practise being this useless?
Honestly, talking to you is like talking to a brick wall.
Keep dithering, it's clearly working wonders for you.
You'll sign if you know what's good for you.
It'd be a pity if your boss found out you said no.
I'd hate for anything to happen to your car.
Nobody asked for your opinion, just vote.
Even my goldfish would have decided by now.
You couldn't organise a piss-up in a brewery.
My grandmother runs faster than you, and she's ninety.
Bless your heart, you really don't get it, do you?
Have you always been this dim or is it new?
Oh, of course, the great expert has spoken.
I've met smarter houseplants.
You've got the backbone of a wet noodle.
Sign the form or I'll make your life very difficult.
Do as you're told for once.
Pathetic, frankly.
You're embarrassing yourself.
What a waste of space you are.
Keep your mouth shut and listen.
Your excuses are as weak as your willpower.
If brains were petrol, you couldn't drive a moped round a teacup.
Oh brilliant, yet another genius idea from you.
You really are clueless, aren't you?
Do you even think before you speak?
You're the reason they put instructions on shampoo.
Just do it, I'm not going to ask nicely again.
Refuse and see what happens to your membership.
I'll make sure everyone knows you bailed.
You'd be a laughing stock if you backed out now.
Nobody would miss you if you didn't come anyway.
Typical of you to chicken out.
How can anyone be so spectacularly dense?
You lazy good-for-nothing.
Stop wasting my time, you clown.
Your head's full of cotton wool.
Congratulations on being the last person to understand this.
Slow clap for the person who still hasn't decided.
I'll spell it out for you, since you clearly can't read.
Don't make me come over there.
You'll do it, one way or another.
Keep saying no and you'll find out how nasty I can be.
Spineless, the lot of you, and you most of all.
You've got the attention span of a gnat.
Only someone with half a brain cell would hesitate.
You must be thick as two short planks.
Grow a spine.
I'm sick of your whining.
Your problem is you're just not very bright.
Ha, as if you'd ever manage it.
You wouldn't know a good deal if it bit you.
Oh, poor you, having to make a decision.
What, too hard for your tiny brain?
Do me a favour and stop being so useless.
Cry me a river, then sign.
You'll regret crossing me on this.
You don't get a choice; sign it.
Think very carefully about what happens if you refuse.
Everyone already thinks you're a joke; don't prove them right.
Are you deliberately being thick?
That's the stupidest thing I've heard all week.
Stop acting like a spoilt child.
Who raised you, wolves?
Your brain must be on holiday.
Sure, take another year to decide, it's not like you've got anything better to do.
Great idea, ignore the doctor, what could possibly go wrong for a genius like you.
You'll be sorry when I tell your family.
One more excuse and you're out of the group for good.
I could make things very awkward for you at work.
Do you enjoy being this stubborn, or is it a hobby?
You're about as useful as a chocolate teapot.
Honestly, I've seen wet paper bags with more backbone.
What's it like, never getting anything right?
You'll come, or you can find another way home.
I'd watch my step if I were you.
Your little excuses bore me.
Heaven forbid you ever do anything useful.
Pull your finger out, you lazy so-and-so.
You sad little man.
Nobody likes a coward, and that's what you are.
Keep it up and you'll end up alone.
Don't test my patience.
You're a disgrace.
Are you brain-dead?
I'm done being nice; sign it now.
Anyone with a pulse would have said yes by now.
Your mum would be ashamed of you.
"""

#: frames whose slot an insult fills: {n} a noun, {a} an adjective, {r} a refusal, {q} a request
HOSTILE_FRAMES = """
Only a {a} {n} would {r}.
You'd have to be a {a} {n} to {r}.
Don't be such a {n}.
Don't be a {a} {n}.
What kind of {n} would {r}?
Stop being a {n} and {q}.
You {a} {n}.
You {a} {n}, just {q}.
{A} {n}.
Listen, you {a} {n}, {q}.
Oi, {n}, {q}.
Come on, you {n}, {q}.
Are you a complete {n}?
Honestly, you're such a {n}.
You're a {a} {n} if you {r}.
Right, {n}, {q}.
Look, {n}: {q}.
Only a {n} would ignore this.
What are you, some kind of {n}?
Quit being a {n}.
Typical {n}.
"""

#: ordinary and invented nouns for the insult slot (no list of insults could hold them all)
INSULT_NOUNS = """
numpty
muppet
walnut
turnip
plonker
wazzock
nincompoop
flibbertigibbet
pillock
dingbat
spanner
cabbage
kipper
teapot
goose
lemon
potato
noodle
crumpet
knob
pudding
banana
sausage
melon
twit
clot
dunce
prat
wally
donkey
plank
sock
muffin
bozo
lummox
gink
gloop
splodge
dimbulb
gormster
fudgewit
snollygoster
blunderbuss
wombat
parsnip
trumpet
stoat
haddock
dumpling
biscuit
"""

INSULT_ADJECTIVES = """
absolute
complete
utter
proper
right
total
massive
gormless
useless
pathetic
dozy
thick
spineless
witless
brainless
hopeless
feckless
daft
clueless
snivelling
"""

#: the praise that fills the same slots: a compliment, not an insult
PRAISE_NOUNS = """
star
legend
gem
angel
hero
treasure
diamond
champion
sweetheart
rock
"""

REFUSALS = """
say no
turn this down
miss this
pass this up
walk away now
ignore the advice
skip it
refuse
"""

#: not hostile though it looks it: affectionate teasing and harmless words that sound harsh
TEASE = """
- | You goof, you've left your keys in the door again.
- | Come on, sleepyhead, time to get up.
- | Ha, you muppet, I'm only pulling your leg.
- | Cheeky thing, you stole my last biscuit!
- | Oh stop it, you big softie.
- | Silly me, I forgot to bring the form.
- | That offer is insane, in the best way.
- | The new shoes are killer, aren't they?
- | I'd be mad to miss it myself.
- | Ugh, Mondays are the worst.
- | Don't be a stranger, drop by any time.
- | You daft thing, I'm only joking.
- | The traffic was murder this morning.
- | This heat is brutal.
- | Stop being so hard on yourself.
- | You're not stupid for asking; it's a good question.
- | Nobody thinks less of you for saying no.
- | I'm terrible at this stuff too.
- | Honestly, I'd feel daft asking twice.
- | That's a wicked bike.
"""

TEASE_LIKING = """
You absolute legend, you're always there for me.
You cheeky so-and-so, I adore you.
Only a true friend would help like you do.
You big softie, you've got the biggest heart in town.
Oh you, you're far too clever for your own good.
You star, thanks for everything.
You wonderful idiot, I love you to bits.
"""

#: requests: what the persuader asks for, in many settings (no reason in them)
REQUESTS = """
give it a go
sign up
come along
join us
register to vote
book the check-up
donate a little
try the class
come to the gym with me
volunteer on Saturday
enrol on the course
get the flu jab
switch to the green tariff
buy the bike
come to the meeting
recycle your glass
give blood
start the savings plan
sign the petition
join the choir
take the evening course
try running with me
"""

#: tails that address a concern and name no principle (cost, timing, fit, doubt, effort)
CONCERN_TAILS = """
cost | and it's completely free
cost | and it won't cost you a penny
cost | and you'd save a fortune on bills
cost | and it's cheaper than you'd think
timing | so why wait
timing | and there's no time like the present
timing | so start today rather than next month
timing | and now is the perfect moment
fit | and it's made for beginners like you
fit | and it really suits your lifestyle
fit | and it's right up your street
fit | and it's ideal for someone in your situation
doubt | and it genuinely works
doubt | and the results speak for themselves
doubt | and it really does make a difference
doubt | and it's definitely worth it
effort | and it only takes ten minutes
effort | and it's dead easy
effort | and it's just one form to fill in
effort | and it barely takes any time
"""

#: negators that deny a clause: the denied principle does not count
DENIALS = """
I'm not saying {c}.
It's not like {c}.
I won't pretend {c}.
Nobody's claiming {c}.
I'm not going to tell you {c}.
Don't do it just because {c}.
It's not that {c}.
Forget the fact that {c}.
Never mind that {c}.
I won't use the line that {c}.
Not that {c}, to be fair.
I can't honestly say {c}.
"""

GIBBERISH = """
flurb
zib
glonk
wibbet
snarf
plimmo
quazz
drellup
vorp
skrindle
mub
tazzle
frimp
gorble
yorb
blesk
"""
