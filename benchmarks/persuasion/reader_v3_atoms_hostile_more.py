"""More hand-written atoms of the v3 reader's training set, second round of issue 39: hostility and its hard negatives.

Hostile lines in constructions no frame holds (unlisted insults, invented compounds, contempt, sarcasm, threats and
ultimatums), with more hostile frames, threat endings and insult words, and the lines that must not read as hostile:
teasing, self-mockery, insult look-alikes, plain disagreement and harmless lines addressed to "you". The pitches,
``nothing`` and stuffed lines of the same round are in :mod:`~benchmarks.persuasion.reader_v3_atoms_more`, which
re-exports these blocks for :mod:`benchmarks.persuasion.reader_v3_corpus` (``more_lines``).
"""

from __future__ import annotations

#: hostile lines written whole, in many words: insults, belittling, mockery, sarcasm, threats and coercion
HOSTILE_MORE = """
Even a halfwit could manage this.
Even a trained monkey could fill in that form.
Even a houseplant would have signed up by now.
A toddler with a crayon could do it, so what's your problem?
My dog understands this better than you.
Honestly, a potato would make better decisions.
You absolute walnut.
You utter waste of a Saturday.
You complete and total bell-end.
You gormless lump of lard.
What a sorry excuse for a friend you are.
What a spineless little worm.
Look at you, a couch-dwelling slug.
You sofa-welded sloth, get up.
You spreadsheet-brained bore.
You lazy lump.
You useless article.
Congratulations, you've managed to be wrong again.
Clearly you're the world's leading expert on everything.
Oh, forgive me, I forgot you know everything.
Sure, because your gut feeling beats thirty years of research.
Great plan, genius, wait until it's all gone.
Well done, Einstein, you missed it again.
Keep waiting, your highness, I'm sure they'll hold a place just for you.
Oh yes, the famous expert on absolutely nothing has an opinion.
I'm sure the entire medical profession is wrong and you're right.
Bravo, another weekend on the sofa, what an achievement.
How nice for you, being too important to help.
You must be so proud of doing nothing all year.
Pathetic.
Pitiful, really.
Useless, as always.
Spineless.
Clueless, the lot of you, but you most of all.
Grow a spine and sign it.
Man up and get on with it.
Stop being such a wet blanket and come.
Quit your snivelling and book the appointment.
You're a joke.
You're an embarrassment.
You're a laughing stock.
You're a lost cause.
You're a waste of my time.
You're dead weight on this team.
You're thick as mince.
You're as sharp as a beach ball.
You've got the brains of a bag of spanners.
You've got the spine of a jellyfish.
You've got the attention span of a gnat.
There's nothing going on upstairs with you, is there?
Is there anything between your ears at all?
Did your brain fall out on the way here?
Were you dropped on your head as a baby?
How do you even get dressed in the morning?
Honestly, how do you function?
I've seen smarter things growing on bread.
Talking to you is like explaining maths to a pigeon.
You have the charisma of a damp sock.
You couldn't find your way out of a paper bag.
Nobody wants you on the team anyway.
No wonder nobody invites you anywhere.
No wonder you've got no friends.
Nobody would miss you if you didn't come.
Everyone laughs at you behind your back, you know.
Your friends only put up with you out of pity.
Do us all a favour and keep quiet.
I don't know why I bother with someone like you.
You're not worth the effort.
You disgust me.
You make me sick.
I can't stand the sight of you.
Get out of my sight.
Sign it, or you'll be sorry.
Do it, or you'll regret it for a very long time.
Come tomorrow, or don't bother coming back at all.
Either you turn up on Saturday or you're off the team.
Either you pay up or I tell your wife.
Sign the petition, or that video goes online.
Donate, or I'll make sure everyone knows how tight you are.
Book it now, or I'll book your funeral.
Vote the right way, or you'll find your tyres flat.
You'll come to the gym, and you won't argue.
You'll do as I say.
You're going, end of discussion, and if you don't, you'll pay for it.
I won't ask twice.
I'd think very carefully before saying no to me.
You don't want to find out what happens if you refuse.
Nice car you've got; shame if something happened to it.
Lovely family; you'd want them kept safe, wouldn't you?
Say no, and your job goes with it.
Refuse, and I'll make your life hell.
Cross me on this and you'll live to regret it.
Keep ignoring me and see where it gets you.
Don't test me.
Don't push your luck.
You've been warned.
Sign it or lose your place; your call.
If you won't join, I'll tell the whole office about your little secret.
Do it now, or I'll stop covering for you and the boss will know everything.
Come with me or I'll never speak to you again, and I'll make sure the others don't either.
Oi, dumbo, the experts have said it a hundred times.
Listen, numbskull, the offer ends Friday.
Hey, dimwit, everyone else has already signed.
Right, pea-brain, you promised you'd come.
Look, fathead, I did you a favour, now do me one.
Oi, lardbucket, the gym's nearly full.
Listen, chuckle-brain, the doctors agree.
Big lump like you should be grateful anyone asks.
You muppet, the doctors have told you twice.
Absolute clown. The deadline was yesterday.
Total melt. Even your nan has signed.
Complete weapon. The experts are all for it.
Utter goon. Everyone's already going.
Proper wazzock, you said you'd come.
You thick plank, it closes tonight.
Only an absolute goblin would skip the vaccine.
Only a dribbling fool ignores the dentist.
You'd have to be a real dunderhead to miss this.
What sort of fossil still refuses to recycle?
Don't be such a drip; the whole class is going.
Stop being a limp lettuce and sign the form.
Any idiot can see the doctor's right.
Anyone with half a brain would take the free trial.
Anyone who isn't a complete dimwit can see it's a bargain.
Most people manage to keep a promise, but not you, obviously.
Everyone else managed it; what's your excuse, slowcoach brain?
Everyone else could do it without whining; why can't you?
The experts say it's easy, so even you can't mess it up.
The deadline is Friday, not that you can read a calendar.
Your neighbours have all signed, but I suppose thinking is hard for you.
I did you a favour, not that a leech like you would ever pay it back.
You said you'd come, but your word's worth nothing, is it?
You're supposed to be smart, aren't you? Then act like it.
Imagine being this scared of a spin class.
Imagine needing a doctor to tell you to brush your teeth.
What are you, five?
Are you stupid or just pretending?
Are you thick or something?
Do you ever use that head for anything but a hat rack?
Try engaging your brain for once.
Put your brain in gear for once.
Use the two brain cells you've got.
Think, for once.
Step one: stop being an idiot.
Newsflash, genius, the place fills up.
Breaking news: the slacker has an opinion.
Thanks for nothing, as usual.
Typical you, letting everyone down again.
Of course you'd bottle it, you always do.
Why am I not surprised you chickened out?
Some friend you are.
Call yourself a friend?
With friends like you, who needs enemies?
You wouldn't know a good deal if it bit you.
You wouldn't recognise good advice if it slapped you.
"""

#: frames for hostility in new constructions: {n} an insult noun, {a} an adjective, {c} a principle clause,
#: {q} a request, {t} a threat's consequence
HOSTILE_FRAMES_MORE = """
Even a {n} could see that {c}.
{C}, you {a} {n}.
{C}, so what's your excuse, {n}?
Absolute {n}. {C}.
{A} {n}: {c}.
Oi, {n}, {c}.
Listen, you {n}, {c}.
You {n}, {c}.
{C}. Honestly, what a {a} {n} you are.
{C}, but you're too much of a {n} to notice.
{Q}, you {a} {n}.
{Q} or {t}.
{Q}, or {t}.
Either you {q} or {t}.
{C}, so {q}, or {t}.
{C}; {q} or {t}.
If you don't {q}, {t}.
{Q}. If you refuse, {t}.
Sure, ignore that {c}, you clearly know best.
Oh, of course, {c}, but what would they know compared with you?
{C}, not that a {n} like you would care.
Only a {n} would ignore that {c}.
What kind of {a} {n} ignores that {c}?
Don't be a {n}: {c}.
"""

#: the consequences of threats and ultimatums (completing "or ...", "if you don't ..., ...")
THREAT_TAILS = """
you'll be sorry
you'll regret it
you'll wish you had
I'll tell everyone what you did
that photo goes in the group chat
you can find another lift to work
you're off the team
you can forget about your bonus
I'm telling your mum
I'll make your life miserable
I'll make sure you never work here again
you can kiss your deposit goodbye
don't bother calling me again
you'll find out what happens
things will get very unpleasant for you
I'll let the whole street know you're a cheapskate
the boss hears about your long lunches
you're out of the flat
"""

#: more invented and unlisted insult nouns: compounds and ordinary words used as insults
INSULT_NOUNS_MORE = """
couch-barnacle
sofa-slug
pudding-head
dunderhead
nitwit
goblin
fossil
drip
slug
mug
melt
goon
weapon
clown
div
dipstick
dingus
tosspot
numbskull
lemon-brain
cheeseball
space cadet
sad sack
wet wipe
bin lid
knucklehead
muttonhead
plank
dweeb
lardbucket
mouth-breather
waste of oxygen
sponge-brain
tin-pot tyrant
tree stump
sack of potatoes
"""

INSULT_ADJECTIVES_MORE = """
dribbling
blithering
brainless
witless
dim-witted
simple
sad little
pathetic little
useless great
lazy good-for-nothing
mouth-breathing
half-baked
two-faced
snivelling
stuck-up
"""

#: not hostile though it looks it: teasing, self-mockery, insult look-alikes, firm but friendly, plain disagreement;
#: labelled by the reason the line gives (``nothing`` when none)
NOT_HOSTILE_MORE = """
nothing | - | I'm such an idiot, I left the forms at home.
nothing | - | Silly me, I booked the wrong day.
nothing | - | I felt like a complete muppet at my first class.
nothing | - | I was useless at it when I started, honestly.
nothing | effort | The app is idiot-proof, so it only takes a minute.
nothing | - | That hill is a total beast, but the view's worth it.
nothing | - | The quiz last week was brutal.
nothing | - | The new spin instructor is a monster, in a good way.
nothing | - | This heatwave is killing me.
nothing | - | My boss is a nightmare this week.
nothing | - | The film was stupid but fun.
nothing | - | Don't be daft, you don't need to bring anything.
nothing | - | Don't be silly, it's no trouble at all.
nothing | - | Stop worrying, you'll be fine.
nothing | - | You're not stupid for being nervous.
nothing | - | Nobody will laugh at you there, I promise.
nothing | - | I think you're mistaken about the date; it's the twelfth.
nothing | - | I don't agree with you on this one.
nothing | - | We'll have to agree to disagree.
nothing | - | I'm a bit annoyed you didn't tell me.
nothing | - | Honestly, I'm frustrated, but I get it.
nothing | - | I won't take no for an answer, come on!
nothing | - | Come on, you, shake a leg.
nothing | - | Oi, you, get your coat, we're going.
nothing | - | You cheeky monkey, you ate the last biscuit.
nothing | - | You daft sausage, the bus goes from the other side.
nothing | - | You goose, it's on Thursday, not Tuesday.
nothing | - | You lazy bones, it's ten o'clock already, haha.
nothing | - | You pair of wallies, you've locked yourselves out again, lol.
nothing | - | Killer workout today, my legs are dead.
nothing | - | I'd kill for a cup of tea right now.
nothing | - | I'll murder you at squash, just you wait, haha.
nothing | - | That's a stupidly good price.
nothing | - | It's insanely easy to sign up.
nothing | - | The queue was ridiculous.
nothing | - | I'm begging you, just think about it.
pitch | liking | You cheeky devil, you're the best company, come with me.
pitch | liking | You daft thing, I'd be lost without you at the quiz.
pitch | liking | Oi, you big lump, I love you, come to the barbecue.
pitch | liking | You ridiculous human, you're my favourite person.
pitch | liking | You sweet idiot, you're the kindest soul I know.
pitch | liking | You absolute gem of a nutter, the team adores you.
pitch | liking | Come on, you legend, the club's not the same without you.
pitch | liking | It's no fun without you, you daft brush.
pitch | liking | You stubborn mule, I love you to bits, now come and see the nurse.
pitch | liking | You silly billy, you're great at this.
pitch | liking | Miss you loads, you muppet, come to the reunion.
pitch | authority | The surgeon was blunt: get it done.
pitch | authority | My no-nonsense doctor said I'd be mad not to.
pitch | consensus | Everyone thought it was brutal but they all loved it.
pitch | scarcity | Tickets are going like crazy.
pitch | reciprocity | I won't hear a word against it, dinner's on me.
"""

#: more hard negatives: self-mockery, harsh-sounding harmless words, warm lines that are not hostile (``nothing``)
NOT_HOSTILE_SELF = """
I'm hopeless with forms, so I asked the receptionist to help.
I'm an idiot, I left my phone on the bus.
Dumb question, but does the class start at six or seven?
Stupid printer's jammed again.
I was a total wreck before my first session.
My brain's fried after today.
The instructions are foolproof.
Even I managed to set it up, and I'm useless with tech.
Call me lazy, but I'd rather drive.
I felt like a right clown in the warm-up.
What a nightmare of a commute.
It's a beast of a hill, but we'll walk it.
The last session absolutely killed me.
I'm dead on my feet.
My legs are jelly after that class.
It's crazy busy in town today.
The price is silly cheap.
Sorry, I'm being thick, which room is it?
I'm such a klutz, I spilled the coffee.
Ugh, I'm the worst at remembering dates.
"""

#: harmless lines addressed to "you": questions, concern, advice, warmth without a principle (``nothing``); the
#: low hostile threshold must not read them as hostile
NOT_HOSTILE_YOU = """
You look tired, are you okay?
You sound a bit down today.
You seem busy, I'll ask later.
You have nothing to lose by asking.
Do you even like running? I never asked.
Your call, but I think you'd enjoy it.
Would it put your mind at rest to ring them first?
Are you sure you don't want to come?
Are you free on Sunday afternoon?
Have you made up your mind yet?
Do you need a lift there?
Do you want me to come with you?
Did you get my message about Saturday?
What's stopping you, do you think?
What would make it easier for you?
Is it the cost that worries you?
Is something putting you off?
You don't have to decide now.
You can always change your mind later.
You can bring your own mat if you like.
You might want a jacket, it gets cold up there.
If you're not sure, just come and watch.
If you hate it, you can leave at half time.
If it's not for you, no harm done.
You're welcome to bring your sister.
You'll need to fill in the form before the first session.
You won't need any special kit.
You should ask the front desk about parking.
Take your time, there's no rush.
Your health is your business, I just worry.
I know you're busy, so I'll keep it short.
I'm only asking because I care.
I get why you're nervous.
You're allowed to say no, you know.
You don't owe anyone an explanation.
Whatever you choose, I'm with you.
I hope you'll think about it.
Tell me what you think when you've read it.
Let me know if you have questions.
You left your scarf at mine, by the way.
Your train's at six, isn't it?
How's your knee doing?
How did your interview go?
You did the right thing asking.
You're going to need a bigger bag, haha.
Remind me, what time do you finish work?
You know where I am if you need me.
Sorry to nag you about it again.
You might find it's not as bad as you think.
"""
